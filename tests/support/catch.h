#pragma once
// The one place the tests include Catch2 (Debian's catch2 2.13, single header).
#include <catch2/catch.hpp>
