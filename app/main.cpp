// fusionlab: one binary for the GUI, `info`, `bench` and `shot`; app/cli.cpp does the work so
// tests can parse command lines without starting a process.
#include "app/cli.h"

int main(int argc, char** argv) { return app::cli::main_entry(argc, argv); }
