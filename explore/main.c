/* SPDX-License-Identifier: MIT */
/* mockrun-explore: the program mockrun execs for `mockrun explore`. */
#include "explore.h"

int main(int argc, char **argv)
{
	return ms_explore_main(argc, argv);
}
