// The Catch2 v2 main, alone in its translation unit so it compiles once.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
