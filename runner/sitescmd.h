/* SPDX-License-Identifier: MIT */
/* mockrun sites FILE...: the error-site coverage of sites files. */
#ifndef MS_SITESCMD_H
#define MS_SITESCMD_H

/* argv[0] is "sites"; the exit status. */
int ms_sites_main(int argc, char **argv);

#endif
