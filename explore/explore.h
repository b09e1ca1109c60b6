/* SPDX-License-Identifier: MIT */
/*
 * mockrun explore (DESIGN.md section 7.2): the face of explore/.
 *
 * explore is a client of mockrun: each run is a mockrun process with the
 * run's statements, its report in JSON and its output in files.  mockrun
 * execs the mockrun-explore program for `mockrun explore ...`
 * (runner/mockrun.c), naming itself in $MOCKSHIM_MOCKRUN.
 */
#ifndef MS_EXPLORE_H
#define MS_EXPLORE_H

/* `mockrun explore ARGS...` (argv[0] is "explore"): 0 no finding, 1
 * findings, 125 explore's own error, 130 interrupted. */
int ms_explore_main(int argc, char **argv);

#endif
