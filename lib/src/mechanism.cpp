#include "shufflempc/mechanism.hpp"

#include <string>

#include "shufflempc/error.hpp"

namespace shufflempc {

void check_total(const RoundShape& shape, std::size_t messages, std::size_t submitted) {
  if (messages < shape.min_messages * submitted || messages > shape.max_messages * submitted)
    throw_error(Errc::protocol_violation, std::to_string(messages) + " messages from " + std::to_string(submitted) +
                                              " parties, who may send " + std::to_string(shape.min_messages) + " to " +
                                              std::to_string(shape.max_messages) + " each");
}

}  // namespace shufflempc
