/* SPDX-License-Identifier: MIT */
/* What bench's decl loops call through the PLT: library functions no
 * catalog knows, mocked by declared prototypes (integers, a double). */
int msb_add(int a, int b);
double msb_scale(double x, int k);

int msb_add(int a, int b)
{
	return a + b;
}

double msb_scale(double x, int k)
{
	return x * k;
}
