/* SPDX-License-Identifier: MIT */
/* Runs a fuzz target over corpus files: the regression test, no libFuzzer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	printf("1..%d\n", argc - 1);
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		static uint8_t buf[1 << 20];
		size_t n;

		if (!f) {
			printf("not ok %d - %s: cannot read\n", i, argv[i]);
			return 1;
		}
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, n);
		printf("ok %d - %s\n", i, argv[i]);
	}
	return 0;
}
