/* SPDX-License-Identifier: MIT */
/**
 * @file result.h
 * What a run of the driver (driver.h) ended with, and the report's
 * formats and verbosity: the types the report library shares with the
 * driver, on their own, so that the report (linked into the shim too)
 * does not take in the driver's API.
 */
#ifndef MOCKSHIM_RESULT_H
#define MOCKSHIM_RESULT_H

#ifdef __cplusplus
extern "C" {
#endif

enum mockshim_report_format {
	MOCKSHIM_REPORT_TEXT = 0,
	MOCKSHIM_REPORT_TAP,
	MOCKSHIM_REPORT_JSON,
	MOCKSHIM_REPORT_JUNIT,	/**< a testsuite, a testcase per statement */
	MOCKSHIM_REPORT_TAP14,	/**< TAP version 14 (MOCKSHIM_REPORT_TAP is version 13) */
	MOCKSHIM_REPORT_HTML,	/**< one self-contained page (no network, no script) */
};

enum mockshim_verbosity {
	MOCKSHIM_QUIET = -1,	/**< failures only */
	MOCKSHIM_NORMAL = 0,	/**< rules, failures, leftovers */
	MOCKSHIM_VERBOSE = 1,	/**< also every consumed value, with pid/tid */
};

/** What a run ended with. */
struct mockshim_result {
	int exited;		/**< 1: the program exited with exit_status */
	int exit_status;
	int signal;		/**< the signal that killed the program, or 0 */
	int timed_out;		/**< the timeout expired and the tree was killed */
	int driver_signal;	/**< a signal the driver received and forwarded, or 0 */
	int exec_errno;		/**< the program could not be started: its errno */
	unsigned failures;	/**< failed checks, leftovers included */
	unsigned leftovers;	/**< of them: statements not used up (values, expectations, calls) */
	unsigned processes;	/**< processes whose shim attached */
	unsigned consumed;	/**< turns taken, by all statements */
	long long started;	/**< when the run started, seconds since the epoch */
	double seconds;		/**< how long it took, start to the last process's exit */
	int tampered;		/**< the run's shared state was found changed in a way no
				     shim writes it: no verdict (mockrun exits 125) */
};

#ifdef __cplusplus
}
#endif

#endif
