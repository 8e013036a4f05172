// SPDX-License-Identifier: GPL-2.0
/*
 * checktext SEED [POLICY]: the program the exec stress tests run, many
 * thousand times.  Its text (gen-checktext.py) is one function per 4K:
 * function i returns i and the rest of its 4K is a pattern of (i, word).
 * It calls 8 of them at offsets spread over the text (which ones depends
 * on SEED), compares each one's 4K with the pattern, and exits with
 * 64 + SEED % 64, so a parent can tell a correct run from a corrupted
 * one (2: pattern wrong, 3: wrong return value) or one that crashed.
 * With POLICY (a number), the process's PR_GET_EXEC_FOLIO_ORDER must
 * return it (4 if not): the prctl survived fork and exec.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#ifndef PR_GET_EXEC_FOLIO_ORDER
#define PR_GET_EXEC_FOLIO_ORDER 83
#endif

extern unsigned int (*const ct_funcs[])(void);
extern const unsigned long ct_nfuncs;

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

int main(int argc, char **argv)
{
	unsigned long n = ct_nfuncs, seed, i, j, k, w;

	if (argc < 2)
		return 5;
	seed = strtoul(argv[1], NULL, 0);
	if (argc > 2 && argv[2][0] != '-') {
		long want = strtol(argv[2], NULL, 0);
		long got = prctl(PR_GET_EXEC_FOLIO_ORDER, 0, 0, 0, 0);

		if (got != want) {
			fprintf(stderr, "checktext: policy %ld, expected %ld\n", got, want);
			return 4;
		}
	}
	for (j = 0; j < 8; j++) {
		const volatile uint64_t *page;

		k = (seed + j * (n / 8) + (seed >> 8) % (n / 8 + 1)) % n;
		if (ct_funcs[k]() != k) {
			fprintf(stderr, "checktext: function %lu returned %u\n",
				k, ct_funcs[k]());
			return 3;
		}
		page = (const volatile uint64_t *)(uintptr_t)ct_funcs[k];
		for (w = 2; w < 512; w++) {
			if (page[w] != mix((k << 16) | w)) {
				fprintf(stderr, "checktext: page %lu word %lu: %#llx, expected %#llx\n",
					k, w, (unsigned long long)page[w],
					(unsigned long long)mix((k << 16) | w));
				return 2;
			}
		}
	}
	i = 64 + seed % 64;
	return (int)i;
}
