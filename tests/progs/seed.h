/* SPDX-License-Identifier: GPL-2.0 */
/*
 * seed.h: the first random state of each thread or process of a stress
 * program, from the run's seed (printed, and taken back with -s), so that
 * the same seed makes the same choices.
 */
#ifndef SEED_H
#define SEED_H

/* splitmix64 of @seed and the thread's or process's number @n; never 0. */
static inline unsigned long seed_for(unsigned long seed, unsigned long n)
{
	unsigned long z = seed + (n + 1) * 0x9e3779b97f4a7c15UL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
	return (z ^ (z >> 31)) | 1;
}
#endif
