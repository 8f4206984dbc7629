// The Catch2 v2 entry point for the whole suite (Debian 12 ships Catch2 2.x).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
