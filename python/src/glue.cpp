// The conversions and helpers every file of the module shares (glue.hpp).
#include "glue.hpp"

#include <pybind11_json/pybind11_json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <regex>
#include <stdexcept>

#include "python_protocol.hpp"
#include "shufflempc/suggest.hpp"

namespace shufflempc::pyglue {


// An error of the library as Python speaks: the command line's spellings in its messages become
// the keyword arguments that set the same thing (--set noise -> fixed['noise'], --vary epsilon ->
// axes['epsilon'], --noise calibrated -> noise='calibrated', --random-inputs 'x' ->
// random_inputs='x', --min-parties and min-parties -> min_parties).
std::string pythonic(std::string text) {
  // std::regex recurses per character: a message echoing a long user string (60 KB) would overflow
  // the stack. Such a message is cut first; the spellings it rewrites come early in every message.
  if (text.size() > 2000) text = text.substr(0, 2000) + "... (" + std::to_string(text.size() - 2000) + " more bytes)";
  static const std::regex set_key("--set ([A-Za-z0-9_-]+)"), vary_key("--vary ([A-Za-z0-9_-]+)"), quoted("--([a-z][a-z0-9-]*) '([^']*)'"),
      use_value("(use|needs) --([a-z][a-z0-9-]*) ([a-z0-9.]+)"), flag("--([a-z][a-z0-9-]*)"), parties_word("\\b(min|max)-parties\\b");
  text = std::regex_replace(text, set_key, "fixed['$1']");
  text = std::regex_replace(text, vary_key, "axes['$1']");
  text = std::regex_replace(text, quoted, "$1='$2'");
  text = std::regex_replace(text, use_value, "$1 $2='$3'");
  text = std::regex_replace(text, flag, "$1");
  text = std::regex_replace(text, parties_word, "$1_parties");
  // The option names that were turned into keywords keep no dash (random-inputs -> random_inputs).
  static const std::regex dashed_keyword("\\b(random|min|max|decryption|mix|per)-(inputs|parties|threshold|servers|trial)\\b");
  return std::regex_replace(text, dashed_keyword, "$1_$2");
}

// The built-in protocols and those registered from Python (register_protocol).
Registry& registry() {
  static Registry r = builtin_registry();
  return r;
}

// The general conversion, its refusals (an integer JSON cannot hold, a type it has no form for) as
// ValueError naming the value instead of the JSON library's RuntimeError.
Value json_of(py::handle h) {
  try {
    return python::json_from_python(h, "an input");
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::runtime_error& e) {
    std::string text = py::repr(h).cast<std::string>();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    throw std::invalid_argument("an input must be a number in [-2^63, 2^64 - 1], a string, a bool, or a list or dict of them, got " + text);
  }
}

// A Python value as JSON: numpy arrays and scalars through tolist() (their native Python values).
Value to_value(py::handle h) {
  // The common scalars directly (pyjson's general path costs about a microsecond per number).
  if (PyBool_Check(h.ptr())) return h.ptr() == Py_True;
  if (PyLong_CheckExact(h.ptr())) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
    if (overflow == 0) return v;
  }
  if (PyFloat_CheckExact(h.ptr())) return PyFloat_AS_DOUBLE(h.ptr());
  if (py::hasattr(h, "tolist")) return json_of(h.attr("tolist")());
  return json_of(h);
}

// A count argument (parties, trials, k, ...): a non-negative whole number, as an int, a numpy integer
// or a float that is exactly one (parties=1e5), else ValueError naming the argument (not pybind11's
// TypeError listing the signature).
std::size_t count_of(const py::handle& v, const char* name) {
  const auto refuse = [&] {
    return std::invalid_argument(std::string(name) + " must be a non-negative whole number, got " + py::repr(v).cast<std::string>());
  };
  if (PyBool_Check(v.ptr())) throw refuse();
  py::int_ n;
  if (PyFloat_Check(v.ptr())) {
    const double d = v.cast<double>();
    if (!(d >= 0 && d < 18446744073709551616.0) || d != std::floor(d)) throw refuse();
    n = py::int_(static_cast<std::uint64_t>(d));
  } else if (PyIndex_Check(v.ptr())) {
    n = py::reinterpret_steal<py::int_>(PyNumber_Index(v.ptr()));
  } else {
    throw refuse();
  }
  if (n < py::int_(0) || n > py::int_(static_cast<std::uint64_t>(SIZE_MAX))) throw refuse();
  return n.cast<std::size_t>();
}

py::object to_python(const Value& v) { return pyjson::from_json(v); }

// A sequence of inputs as JSON values: a numpy array converted whole (tolist), a list as it is.
std::vector<Value> values_of(const py::handle& inputs) {
  const py::object seq = py::hasattr(inputs, "tolist") ? inputs.attr("tolist")() : py::reinterpret_borrow<py::object>(inputs);
  std::vector<Value> out;
  if (py::hasattr(seq, "__len__")) out.reserve(py::len(seq));
  for (auto x : seq) out.push_back(to_value(x));
  return out;
}

// A parameter as the command line would spell it: True -> "true", 0.1 -> "0.1", "x" -> "x".
std::string param_text(py::handle v) {
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (py::hasattr(v, "item") && !py::isinstance<py::int_>(v) && !py::isinstance<py::float_>(v)) return param_text(v.attr("item")());
  return py::repr(v).cast<std::string>();  // repr: the shortest text that reads back as the same float
}

// The protocol's parameters from the keyword arguments (min_parties or min-parties). A keyword that is
// neither one of them nor one of the call's own (`keywords`, which pybind11 took already) is refused
// naming the nearest of both, in Python's spelling.
std::map<std::string, std::string> params_of(const ProtocolInfo& info, const py::kwargs& kwargs,
                                             std::initializer_list<const char*> keywords) {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : kwargs) {
    std::string name = key.cast<std::string>();
    const auto declared = [&info](const std::string& n) {
      for (const auto& p : info.params)
        if (p.name == n) return true;
      return false;
    };
    if (!declared(name)) {
      std::string dashed = name;
      for (auto& c : dashed)
        if (c == '_') c = '-';
      if (declared(dashed)) name = dashed;
    }
    if (!declared(name)) {
      std::vector<std::string> known;
      std::string listed;
      for (const auto& p : info.params) {
        std::string python = p.name;
        std::replace(python.begin(), python.end(), '-', '_');
        listed += (listed.empty() ? "" : ", ") + python;
        known.push_back(std::move(python));
      }
      for (const char* k : keywords) known.emplace_back(k);
      throw std::invalid_argument("unknown keyword argument '" + name + "'" + did_you_mean(name, known) + " (" + info.name +
                                  (listed.empty() ? " takes no parameters" : "'s parameters: " + listed) + ")");
    }
    if (!value.is_none()) out[name] = param_text(value);
  }
  return out;
}

std::optional<std::uint64_t> seed_of(const py::object& seed) {
  if (seed.is_none()) return std::nullopt;
  const auto s = seed.cast<py::int_>();
  if (s < py::int_(0) || s > py::int_(UINT64_MAX)) throw std::invalid_argument("seed must be in [0, 2^64 - 1]");
  return s.cast<std::uint64_t>();
}

// A progress argument: True draws the command line's bar on stderr, a callable gets
// (done, total, trials_done, trials_total), False and None nothing.
study::Progress progress_of(const py::object& progress, const std::string& label) {
  if (progress.is_none() || (py::isinstance<py::bool_>(progress) && !progress.cast<bool>())) return {};
  if (py::isinstance<py::bool_>(progress)) {
    auto bar = std::make_shared<study::ProgressBar>(label);
    return [bar](double done, double total, std::size_t items, std::size_t all) { (*bar)(done, total, items, all); };
  }
  if (!PyCallable_Check(progress.ptr())) throw std::invalid_argument("progress must be True, False or a callable");
  auto fn = std::make_shared<py::object>(progress);
  return [fn](double done, double total, std::size_t items, std::size_t all) {
    py::gil_scoped_acquire gil;
    (*fn)(done, total, items, all);
  };
}

py::array_t<std::uint8_t> to_array(const MessageBatch& batch) {
  py::array_t<std::uint8_t> a({static_cast<py::ssize_t>(batch.count()), static_cast<py::ssize_t>(batch.width())});
  if (batch.size_bytes() > 0) std::memcpy(a.mutable_data(), batch.data(), batch.size_bytes());
  return a;
}

// Messages from Python: bytes (uint8), or integers that all are bytes; anything else (floats,
// which a cast would truncate, or integers outside [0, 255]) is refused rather than cast.
MessageBatch from_array(const py::array& given, std::size_t width) {
  const char kind = given.dtype().kind();
  if (kind != 'u' && kind != 'i')
    throw std::invalid_argument("messages must be an array of bytes (uint8), got dtype " + py::str(given.dtype()).cast<std::string>());
  if (given.dtype().itemsize() != 1 || kind != 'u') {
    const py::object lo = given.size() > 0 ? given.attr("min")() : py::object(py::int_(0));
    const py::object hi = given.size() > 0 ? given.attr("max")() : py::object(py::int_(0));
    if (lo.cast<long long>() < 0 || hi.cast<long long>() > 255)
      throw std::invalid_argument("messages must hold bytes (0 to 255), got values from " + py::str(lo).cast<std::string>() + " to " +
                                  py::str(hi).cast<std::string>());
  }
  const auto a = py::array_t<std::uint8_t, py::array::c_style | py::array::forcecast>::ensure(given);
  if (a.ndim() != 2) throw std::invalid_argument("messages must be a 2-dimensional array (count, width)");
  if (static_cast<std::size_t>(a.shape(1)) != width)
    throw std::invalid_argument("messages of " + std::to_string(a.shape(1)) + " bytes: this round's width is " + std::to_string(width));
  MessageBatch batch(width, static_cast<std::size_t>(a.shape(0)));
  if (batch.size_bytes() > 0) std::memcpy(batch.data(), a.data(), batch.size_bytes());
  return batch;
}

// Typed columns (experiments::table) as a dict of numpy arrays: float64 with NaN where empty, int64,
// bool, and object arrays of str.
py::dict columns_to_python(const std::vector<study::Column>& cols) {
  py::module_ np = py::module_::import("numpy");
  py::dict out;
  for (const auto& c : cols) {
    using K = study::Column::Kind;
    const std::size_t n = c.text.size();
    if (c.kind == K::real) {
      py::array_t<double> a(static_cast<py::ssize_t>(n));
      auto w = a.mutable_unchecked<1>();
      for (std::size_t i = 0; i < n; ++i) w(static_cast<py::ssize_t>(i)) = c.number[i] ? *c.number[i] : std::nan("");
      out[py::str(c.name)] = a;
    } else if ((c.kind == K::integer || c.kind == K::boolean) &&
               std::all_of(c.number.begin(), c.number.end(), [](const auto& v) { return v.has_value(); })) {
      py::list values;
      // An integer from its text, exact at any size (a seed may exceed 2^53); numpy picks int64,
      // else uint64.
      const py::object to_int = py::module_::import("builtins").attr("int");
      for (std::size_t i = 0; i < n; ++i)
        values.append(c.kind == K::boolean ? py::object(py::bool_(*c.number[i] != 0)) : to_int(py::str(c.text[i])));
      if (c.kind == K::boolean || n == 0) out[py::str(c.name)] = np.attr("array")(values, c.kind == K::boolean ? "bool" : "int64");
      else out[py::str(c.name)] = np.attr("array")(values);
    } else {
      py::list values;
      for (const auto& t : c.text) values.append(py::str(t));
      out[py::str(c.name)] = np.attr("array")(values, py::str("object"));
    }
  }
  return out;
}

}  // namespace shufflempc::pyglue
