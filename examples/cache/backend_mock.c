/* SPDX-License-Identifier: MIT */
/*
 * The mocked back end: will_return(backend_lookup, RC) and, for RC 0,
 * the uid and the home directory.
 */
#include <stdio.h>

#include <mockshim/handler.h>

#include "backend.h"

MOCKSHIM_MOCK(int, backend_lookup, const char *name, struct user *out)
{
	int rc;

	function_called();
	check_expected_ptr(name);
	rc = mock_type(int);
	if (rc == 0) {
		out->uid = mock_type(unsigned);
		snprintf(out->home, sizeof(out->home), "%s", mock_ptr_type(const char *));
	}
	return rc;
}
