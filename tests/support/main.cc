// Catch2's runner, compiled once for every test executable.
#define CATCH_CONFIG_MAIN
#include "support/catch.h"
