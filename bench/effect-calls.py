#!/usr/bin/env python3
"""Write bench/effect.sh's call benchmark: N functions (a power of two),
each 64-byte aligned and followed by 4K of padding, so each sits on its
own 4K page at a different cache set; main() calls them at random
through a table, after one untimed call to each, and prints ns per call
and the kernel's count of its text that is PMD-mapped (smaps)."""
import sys

n = int(sys.argv[1])
print('#define _GNU_SOURCE\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>')
for i in range(n):
    print(f'__attribute__((noinline, aligned(64))) unsigned long f{i}(unsigned long x) '
          f'{{ return (x ^ {i * 2654435761 % 4294967291}ul) * 0x9E3779B97F4A7C15ul >> 3; }}')
    print('__asm__(".text\\n\\t.skip 4096\\n");')
print(f'static unsigned long (*const tab[{n}])(unsigned long) = {{' + ','.join(f'f{i}' for i in range(n)) + '};')
print(r'''
static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long calls = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000000;
	unsigned long x = 1, s = 88172645463325252ul, lo = (unsigned long)tab[0], hi = lo;
	unsigned long pmd = 0, i, a, b;
	char line[512];
	double t0, t1;
	int in = 0;
	FILE *f;

	for (i = 0; i < NFUNC; i++) {	/* fault every page in, untimed */
		a = (unsigned long)tab[i];
		x = tab[i](x);
		if (a < lo)
			lo = a;
		if (a > hi)
			hi = a;
	}
	t0 = now();
	for (i = 0; i < calls; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		x = tab[s % NFUNC](x);
	}
	t1 = now();
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		if (line[strspn(line, "0123456789abcdef")] == '-' && sscanf(line, "%lx-%lx ", &a, &b) == 2)
			in = a <= hi && b > lo;
		else if (in && !strncmp(line, "ShmemPmdMapped:", 15))
			pmd += strtoul(line + 15, NULL, 10);
		else if (in && !strncmp(line, "FilePmdMapped:", 14))
			pmd += strtoul(line + 14, NULL, 10);
	}
	fclose(f);
	printf("ns_per_call %.3f text_pmd_kb %lu text_kb %lu x %lu\n",
	       (t1 - t0) * 1e9 / calls, pmd, (hi - lo) / 1024 + 4, x & 1);
	return 0;
}''')
