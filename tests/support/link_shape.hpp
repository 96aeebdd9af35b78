// This process's links shaped (net/link_shape.hpp) for the life of a guard, then as before.
#pragma once

#include "shufflempc/net/link_shape.hpp"

namespace shufflempc::test {

class ShapedLinks {
 public:
  explicit ShapedLinks(const net::LinkShape& shape) : before_(net::link_shape()) { net::set_link_shape(shape); }
  ~ShapedLinks() { net::set_link_shape(before_); }
  ShapedLinks(const ShapedLinks&) = delete;
  ShapedLinks& operator=(const ShapedLinks&) = delete;

 private:
  net::LinkShape before_;
};

}  // namespace shufflempc::test
