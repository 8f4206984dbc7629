// SHA-256 (FIPS 180-4), for the plan file's hash of its normalised inputs. Small
// and dependency-free: none of the Debian packages shardplan uses provides it.
#pragma once

#include <string>
#include <string_view>

namespace shardplan {

// The SHA-256 digest of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace shardplan
