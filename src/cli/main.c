/* main.c: the profcodec executable (src/cli/cli_main.c is the tool). */
#include "cli.h"

int main(int argc, char **argv) { return pcd_cli_main(argc, argv); }
