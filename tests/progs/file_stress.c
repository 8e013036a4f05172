// SPDX-License-Identifier: GPL-2.0
/*
 * file_stress [options] DIR: files mapped PROT_EXEC (never executed, so
 * they can be written) are read by several threads while others change
 * them under the mappings, and every byte read is checked.
 *
 * Threads, until both counts are reached or the time runs out:
 *  - mutators (-m, 2): pwrite at odd offsets and lengths (each write a new
 *    generation), truncate down, re-extend, punch holes (PUNCH_HOLE |
 *    KEEP_SIZE), rewrite the whole file, fdatasync, posix_fadvise(DONTNEED);
 *  - readers (-r, 3): read through a long-lived mapping of each file, and
 *    through mappings of their own at odd file offsets, shorter than a
 *    folio, ending mid-folio, around end of file, some at virtual
 *    addresses 2M-congruent with the file offset, MAP_PRIVATE and
 *    MAP_SHARED; mremap, mprotect, MADV_DONTNEED/COLD/PAGEOUT/WILLNEED
 *    them, munmap;
 *  - advisors (-a, 1): MADV_DONTNEED/COLD/PAGEOUT/WILLNEED and mprotect on
 *    ranges of the long-lived mappings the readers are reading.
 *
 * Checking: a byte of generation g at file offset o has a value of
 * (g, file, o) (0 in holes and past end of file), so stale data, data of
 * another offset or of another file is wrong.  One mutator at a time per
 * file (a mutex) publishes each change as a seqlock-like phase: the new
 * state (size and the generation of each byte range) in a ring, then
 * seq odd, the syscalls, seq even.  A reader notes seq before and after
 * its read and accepts only what one of the states in between gives,
 * byte by byte; a read from a page past the end of file must raise
 * SIGBUS (caught with sigsetjmp) in one of those states, and a read that
 * raises SIGBUS must be past end of file in one of them.  With no change
 * in between (most reads) exactly one state is possible.
 *
 * -E focuses on end of file: writes across it, truncations and extensions
 * by up to 512K either way, and half the readers read the 1M around it,
 * each time after MADV_DONTNEED, so that faults race with truncation.
 * That they did is counted, not assumed: the reads that a change of end
 * of file overlapped (some state in between puts them past it), and the
 * times the page below end of file was in a large folio (the kernel's
 * pagemap and kpageflags).  -L MIN is a floor for both: a run below it
 * did not exercise the race, whatever it saw.
 *
 * -B (the self-check that the checking works) makes punches and truncations
 * change the model but not the file: the run must then fail.
 *
 * -n OPS (2000) mutations, -c CHECKS (100000) checked reads, -t SECS (120)
 * time cap, -F FILES (2), -s SEED (printed; from the clock if not given:
 * the same seed makes the same choices, not the same interleaving).
 * Prints "# " lines; exit status 0 if every read
 * was right and both counts were reached, 1 on a wrong read, 2 if the
 * counts were not reached in time, 3 if a floor of -L was not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kpf.h"
#include "seed.h"

#define MAXEXT 48
#define RING 64
#define MAXSIZE (6UL << 20)
#define MAPLEN (MAXSIZE + (1UL << 20))
#define SZ_2M (2UL << 20)
#define SZ_64K (64UL << 10)
#define MAXFILES 4

struct ext {
	uint64_t start, end;
	uint32_t gen;
};

struct state {
	uint64_t size;
	int n;
	struct ext e[MAXEXT];
	/* The change that entered this state (-1: the file as created). */
	int op;
	uint64_t op_off, op_len;
};

enum { OP_PWRITE, OP_TRUNC, OP_EXTEND, OP_PUNCH, OP_REWRITE, OP_FADVISE, OP_SYNC, NOPS };
static const char *const op_names[NOPS] = {
	"pwrite", "truncate", "extend", "punch", "rewrite", "fadvise", "fdatasync"
};

struct file {
	int id, fd;
	pthread_mutex_t mu;
	uint64_t seq;
	struct state hist[RING];
	struct state cur;
	uint32_t gen;
	char *gmap;
};

static struct file files[MAXFILES];
static int nfiles = 2;
static int broken;	/* -B: punch and truncate change the model, not the file */
static int eof_focus;	/* -E: changes and reads around end of file */
static long page;
static int stop;
static long n_ops[NOPS], n_checks, n_bus, n_multi, n_unverified, n_maps, n_mremap;
static long n_mprotect, n_madvise, n_errors;
/* -E: reads a change of end of file overlapped; a large folio below it */
static long n_eof_race, n_eof_large, n_eof_sampled, n_kpf_err;

#define ADD(v, n) __atomic_add_fetch(&(v), (n), __ATOMIC_RELAXED)
#define LOAD(v) __atomic_load_n(&(v), __ATOMIC_RELAXED)

static __thread sigjmp_buf jb;
static __thread volatile int armed;
static __thread unsigned long rng_state;

static unsigned long seed;	/* -s: every thread's choices follow from it */

static unsigned long rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void error(const char *fmt, ...)
{
	va_list ap;

	if (ADD(n_errors, 1) > 20)
		return;
	va_start(ap, fmt);
	fputs("file_stress: ERROR: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t pattern_word(uint32_t gen, int id, uint64_t o)
{
	return mix(((uint64_t)gen << 40) ^ ((uint64_t)id << 36) ^ (o >> 3));
}

static uint8_t pattern(uint32_t gen, int id, uint64_t o)
{
	return pattern_word(gen, id, o) >> ((o & 7) * 8);
}

static void fill(uint8_t *buf, uint32_t gen, int id, uint64_t off, uint64_t len)
{
	uint64_t o = off;

	while (o < off + len && (o & 7))
		*buf++ = pattern(gen, id, o++);
	for (; o + 8 <= off + len; o += 8, buf += 8) {
		uint64_t w = pattern_word(gen, id, o);

		memcpy(buf, &w, 8);	/* little endian: byte k is w >> 8k */
	}
	while (o < off + len)
		*buf++ = pattern(gen, id, o++);
}

/*
 * The value state @st gives the byte at @o: returns 0 if reading it must
 * raise SIGBUS (its page is past end of file), else 1 with *@val.
 */
static int state_byte(const struct state *st, int id, uint64_t o, uint8_t *val)
{
	int i, n = st->n < 0 ? 0 : st->n > MAXEXT ? MAXEXT : st->n;

	if (o / page >= (st->size + page - 1) / page)
		return 0;
	*val = 0;
	for (i = 0; i < n; i++)
		if (o >= st->e[i].start && o < st->e[i].end && o < st->size) {
			*val = pattern(st->e[i].gen, id, o);
			break;
		}
	return 1;
}

/* Set [a, b) to @gen (0: zeroes); -1 if that takes too many extents. */
static int state_set(struct state *st, uint64_t a, uint64_t b, uint32_t gen)
{
	struct ext out[MAXEXT + 2];
	int i, n = 0, placed = 0;

	if (a >= b)
		return 0;
	for (i = 0; i < st->n; i++) {
		struct ext e = st->e[i];

		if (!placed && gen && e.start >= a) {
			out[n++] = (struct ext){ a, b, gen };
			placed = 1;
		}
		if (e.end <= a || e.start >= b) {
			out[n++] = e;
		} else {
			if (e.start < a)
				out[n++] = (struct ext){ e.start, a, e.gen };
			if (!placed && gen) {
				out[n++] = (struct ext){ a, b, gen };
				placed = 1;
			}
			if (e.end > b)
				out[n++] = (struct ext){ b, e.end, e.gen };
		}
		if (n > MAXEXT)
			return -1;
	}
	if (!placed && gen)
		out[n++] = (struct ext){ a, b, gen };
	if (n > MAXEXT)
		return -1;
	memcpy(st->e, out, n * sizeof(out[0]));
	st->n = n;
	return 0;
}

static void state_truncate(struct state *st, uint64_t size)
{
	int i, n = 0;

	for (i = 0; i < st->n; i++) {
		struct ext e = st->e[i];

		if (e.start >= size)
			continue;
		if (e.end > size)
			e.end = size;
		st->e[n++] = e;
	}
	st->n = n;
	st->size = size;
}

/* Publish @next as the state being entered: ring slot, then seq odd. */
static void phase_begin(struct file *f, const struct state *next)
{
	uint64_t k = f->seq / 2 + 1;

	/* Readers that see the slot change must see the seq before it. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	memcpy(&f->hist[k % RING], next, sizeof(*next));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&f->seq, 2 * k - 1, __ATOMIC_SEQ_CST);
}

static void phase_end(struct file *f, const struct state *next)
{
	__atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_SEQ_CST);
	f->cur = *next;
}

/* An offset up to @max near the sizes that matter: 2M, 64K, pages. */
static uint64_t pick_off(uint64_t max)
{
	uint64_t o, unit;

	switch (rnd() % 4) {
	case 0:
		return rnd() % (max + 1);
	case 1:
		unit = SZ_2M;
		break;
	case 2:
		unit = SZ_64K;
		break;
	default:
		unit = page;
		break;
	}
	o = (rnd() % (max / unit + 1)) * unit;
	switch (rnd() % 4) {
	case 0: break;
	case 1: o += rnd() % 8192; break;
	default: o = o > 8192 ? o - rnd() % 8192 : 0; break;
	}
	return o > max ? max : o;
}

static uint8_t *wbuf_get(void)
{
	static __thread uint8_t *buf;

	if (!buf)
		buf = malloc(MAXSIZE);
	return buf;
}

static void do_pwrite(struct file *f, uint64_t off, uint64_t len, uint32_t gen)
{
	uint8_t *buf = wbuf_get();
	ssize_t n;

	fill(buf, gen, f->id, off, len);
	n = pwrite(f->fd, buf, len, off);
	if (n != (ssize_t)len)
		error("pwrite file %d [%llu, +%llu): %zd %s", f->id, (unsigned long long)off,
		      (unsigned long long)len, n, strerror(errno));
}

static void mutate(struct file *f)
{
	struct state next = f->cur;
	uint64_t size = next.size, off, len;
	int op = rnd() % 100;

	if (eof_focus)
		op = op < 35 ? OP_PWRITE : op < 75 ? OP_TRUNC : op < 85 ? OP_EXTEND :
		     op < 88 ? OP_PUNCH : op < 95 ? OP_FADVISE : OP_SYNC;
	else
		op = op < 30 ? OP_PWRITE : op < 42 ? OP_TRUNC : op < 54 ? OP_EXTEND :
		     op < 70 ? OP_PUNCH : op < 75 ? OP_REWRITE : op < 92 ? OP_FADVISE : OP_SYNC;
	if (op == OP_TRUNC && size == 0)
		op = OP_EXTEND;
	if (op == OP_EXTEND && size >= MAXSIZE)
		op = OP_TRUNC;
	switch (op) {
	case OP_PWRITE:
		off = pick_off(MAXSIZE - 1);
		len = 1 + rnd() % (rnd() % 2 ? 4096 * 3 : 1UL << 20);
		if (eof_focus) {
			/* Across end of file: large folios that straddle it. */
			off = size > SZ_2M / 4 ? size - rnd() % (SZ_2M / 4) : size;
			len = 1 + rnd() % (SZ_2M / 2);
		}
		if (off + len > MAXSIZE)
			len = MAXSIZE - off;
		if (state_set(&next, off, off + len, ++f->gen)) {
			op = OP_REWRITE;
			next = f->cur;
			break;
		}
		if (off + len > next.size)
			next.size = off + len;
		next.op = op, next.op_off = off, next.op_len = len;
		phase_begin(f, &next);
		do_pwrite(f, off, len, f->gen);
		phase_end(f, &next);
		break;
	case OP_TRUNC:
	case OP_EXTEND:
		do
			off = eof_focus ? size + rnd() % (SZ_2M / 2) - SZ_2M / 4 : pick_off(MAXSIZE);
		while ((op == OP_TRUNC ? off >= size : off <= size) || off > MAXSIZE);
		state_truncate(&next, op == OP_TRUNC ? off : size);
		next.size = off;
		next.op = op, next.op_off = off, next.op_len = 0;
		phase_begin(f, &next);
		if ((!broken || op == OP_EXTEND) && ftruncate(f->fd, off))
			error("ftruncate file %d to %llu: %s", f->id,
			      (unsigned long long)off, strerror(errno));
		phase_end(f, &next);
		break;
	case OP_PUNCH:
		off = pick_off(MAXSIZE - 1);
		len = 1 + rnd() % (rnd() % 2 ? 3 * SZ_64K : SZ_2M + page);
		if (state_set(&next, off, off + len < size ? off + len : size, 0)) {
			op = OP_REWRITE;
			next = f->cur;
			break;
		}
		next.op = op, next.op_off = off, next.op_len = len;
		phase_begin(f, &next);
		if (!broken && fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len))
			error("punch file %d [%llu, +%llu): %s", f->id, (unsigned long long)off,
			      (unsigned long long)len, strerror(errno));
		phase_end(f, &next);
		break;
	case OP_FADVISE:
		off = rnd() % 2 ? 0 : pick_off(MAXSIZE);
		len = rnd() % 2 ? 0 : pick_off(MAXSIZE);
		if (posix_fadvise(f->fd, off, len, POSIX_FADV_DONTNEED))
			error("fadvise file %d: %s", f->id, strerror(errno));
		break;
	case OP_SYNC:
		if (fdatasync(f->fd))
			error("fdatasync file %d: %s", f->id, strerror(errno));
		break;
	}
	if (op == OP_REWRITE) {
		next.n = 0;
		state_set(&next, 0, size, ++f->gen);
		next.op = OP_REWRITE, next.op_off = 0, next.op_len = size;
		phase_begin(f, &next);
		do_pwrite(f, 0, size, f->gen);
		phase_end(f, &next);
	}
	ADD(n_ops[op], 1);
}

static void bus_handler(int sig)
{
	if (armed) {
		armed = 0;
		siglongjmp(jb, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void segv_handler(int sig, siginfo_t *si, void *uc)
{
	char msg[128];
	int n = snprintf(msg, sizeof(msg), "file_stress: ERROR: signal %d at %p\n",
			 sig, si->si_addr);

	(void)uc;
	if (write(1, msg, n) < 0)
		_exit(1);
	_exit(1);
}

/* Read 8 bytes at @addr into @bytes; 1 if that raised SIGBUS. */
static __attribute__((noinline)) int read8(const char *addr, uint8_t *bytes)
{
	armed = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (sigsetjmp(jb, 0)) {
		armed = 0;
		return 1;
	}
	uint64_t v = *(const volatile uint64_t *)addr;

	armed = 0;
	memcpy(bytes, &v, 8);
	return 0;
}

/*
 * After a wrong read: what the file itself holds there now (pread(), the
 * page cache), and which physical page the mapping reads (pagemap, as
 * root).  Mapping and page cache agreeing on wrong bytes points at the
 * page cache's content; the cache right and the mapping wrong points at
 * a stale or misplaced page table entry.
 */
static void explain(struct file *f, const char *addr, uint64_t o)
{
	uint8_t now[8] = { 0 };
	uint64_t ent = 0;
	ssize_t n = pread(f->fd, now, 8, o);
	int pm = open("/proc/self/pagemap", O_RDONLY);

	if (pm >= 0) {
		if (pread(pm, &ent, 8, ((uintptr_t)addr / page) * 8) != 8)
			ent = 0;
		close(pm);
	}
	printf("#   pread    %02x %02x %02x %02x %02x %02x %02x %02x (%zd bytes); "
	       "pagemap %s pfn %#llx%s\n", now[0], now[1], now[2], now[3], now[4], now[5],
	       now[6], now[7], n, ent >> 63 ? "present" : "not present",
	       (unsigned long long)(ent & ((1ULL << 55) - 1)),
	       (ent >> 61) & 1 ? " file/shared-anon" : " anon or none");
}

/*
 * Read the 8 bytes at @addr, file offset @o of file @f, and check them
 * against every state the file was in while they were read.
 */
static void check(struct file *f, const char *addr, uint64_t o, const char *what)
{
	uint64_t a, b, c, k, klo, khi;
	uint8_t bytes[8], exp[RING][8];
	int bus, ok[RING], i, n, j, any_bus = 0, good = 1;

	a = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
	bus = read8(addr, bytes);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	b = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
	klo = a / 2;
	khi = (b + 1) / 2;
	if (khi - klo >= RING - 4) {
		ADD(n_unverified, 1);
		return;
	}
	for (k = klo, n = 0; k <= khi; k++, n++) {
		const struct state *st = &f->hist[k % RING];

		ok[n] = 1;
		for (i = 0; i < 8; i++)
			ok[n] &= state_byte(st, f->id, o + i, &exp[n][i]);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	c = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);
	if (c / 2 + 2 >= klo + RING) {
		ADD(n_unverified, 1);
		return;
	}
	ADD(n_checks, 1);
	if (n > 1)
		ADD(n_multi, 1);
	for (j = 0; j < n; j++)
		any_bus |= !ok[j];
	if (n > 1 && any_bus)
		ADD(n_eof_race, 1);
	if (bus) {
		ADD(n_bus, 1);
		good = any_bus;
	} else {
		for (i = 0; i < 8 && good; i++) {
			int match = 0;

			for (j = 0; j < n; j++) {
				match |= ok[j] && exp[j][i] == bytes[i];
				/*
				 * During a change, a byte that it zeroes or
				 * puts past end of file may read as 0 before
				 * its page is unmapped: truncation zeroes the
				 * tail of a folio it cannot split while a
				 * fault-around that raced with it may still
				 * map that page (the second unmap in
				 * truncate_pagecache() removes it).
				 */
				match |= n > 1 && bytes[i] == 0 && (!ok[j] || exp[j][i] == 0);
			}
			good = match;
		}
	}
	if (good)
		return;
	error("%s: file %d offset %#llx (%p): %s, seq %llu..%llu", what, f->id,
	      (unsigned long long)o, addr,
	      bus ? "SIGBUS" : "read", (unsigned long long)a, (unsigned long long)b);
	if (!bus)
		printf("#   read     %02x %02x %02x %02x %02x %02x %02x %02x\n", bytes[0],
		       bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7]);
	explain(f, addr, o);
	for (j = 0; j < n; j++) {
		const struct state *st = &f->hist[(klo + j) % RING];
		uint32_t gen = 0;

		for (i = 0; i < st->n && i < MAXEXT; i++)
			if (o >= st->e[i].start && o < st->e[i].end)
				gen = st->e[i].gen;
		char how[96];

		if (st->op < 0 || st->op >= NOPS)
			snprintf(how, sizeof(how), "the file as created");
		else
			snprintf(how, sizeof(how), "after %s [%#llx, +%#llx)", op_names[st->op],
				 (unsigned long long)st->op_off, (unsigned long long)st->op_len);
		if (ok[j])
			printf("#   state %llu (size %#llx, gen %u here; %s): %02x %02x %02x %02x %02x %02x %02x %02x\n",
			       (unsigned long long)(klo + j), (unsigned long long)st->size, gen, how,
			       exp[j][0], exp[j][1], exp[j][2], exp[j][3], exp[j][4], exp[j][5],
			       exp[j][6], exp[j][7]);
		else
			printf("#   state %llu (size %#llx; %s): SIGBUS\n",
			       (unsigned long long)(klo + j), (unsigned long long)st->size, how);
	}
	fflush(stdout);
}

static uint64_t cur_size(struct file *f)
{
	uint64_t s = __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE);

	return f->hist[((s + 1) / 2) % RING].size;
}

/* Checks in [base, base + len) mapping file offset @foff. */
static void check_range(struct file *f, const char *base, uint64_t foff, uint64_t len,
			int count, const char *what)
{
	uint64_t size = cur_size(f), pos;
	int i;

	len &= ~7UL;
	if (!len)
		return;
	check(f, base, foff, what);
	check(f, base + len - 8, foff + len - 8, what);
	for (i = 0; i < count; i++) {
		if (i % 2 && size > foff && size - foff < len + 2 * page)
			/* Around end of file. */
			pos = size - foff + (rnd() % (4 * page)) - 2 * page;
		else
			pos = rnd() % len;
		pos &= ~7UL;
		if (pos >= len)
			pos = rnd() % len & ~7UL;
		check(f, base + pos, foff + pos, what);
	}
}

/* mmap with the address congruent to the file offset modulo 2M. */
static char *map_aligned(uint64_t len, int prot, int flags, int fd, uint64_t off)
{
	char *r = mmap(NULL, len + SZ_2M, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;
	uintptr_t want;

	if (r == MAP_FAILED)
		return r;
	want = ((uintptr_t)r & ~(SZ_2M - 1)) + (off & (SZ_2M - 1));
	if (want < (uintptr_t)r)
		want += SZ_2M;
	p = mmap((char *)want, len, prot, flags | MAP_FIXED, fd, off);
	if (p == MAP_FAILED) {
		munmap(r, len + SZ_2M);
		return p;
	}
	if ((char *)want > r)
		munmap(r, (char *)want - r);
	munmap(p + len, r + len + SZ_2M - (p + len));
	return p;
}

static const int advices[] = { MADV_DONTNEED, MADV_COLD, MADV_PAGEOUT, MADV_WILLNEED };

static void advise(char *p, uint64_t len, const char *what)
{
	int adv = advices[rnd() % 4];

	if (madvise(p, len, adv) && errno != EAGAIN)
		error("%s: madvise(%p, %#llx, %d): %s", what, p, (unsigned long long)len, adv,
		      strerror(errno));
	ADD(n_madvise, 1);
}

static void own_mapping(struct file *f)
{
	uint64_t size = cur_size(f), pgoff, len, newlen;
	int flags = rnd() % 4 ? MAP_PRIVATE : MAP_SHARED;
	int prot = PROT_READ | PROT_EXEC;
	long npages = MAXSIZE / page;
	char *p, *q;

	switch (rnd() % 5) {
	case 0:		/* the whole file */
		pgoff = 0;
		len = MAXSIZE;
		break;
	case 1:		/* at an odd page offset */
		pgoff = 1 + 2 * (rnd() % 300);
		len = (1 + rnd() % 1024) * page;
		break;
	case 2:		/* shorter than a folio */
		pgoff = rnd() % npages;
		len = (1 + rnd() % 15) * page;
		break;
	case 3:		/* ending in the middle of a 2M or 64K folio */
		if (rnd() % 2) {
			pgoff = (rnd() % 3) * (SZ_2M / page);
			len = SZ_2M - (1 + rnd() % 16) * page;
		} else {
			pgoff = (rnd() % (npages / 16)) * 16;
			len = (16 * (1 + rnd() % 8) - 1 - rnd() % 8) * page;
		}
		break;
	default:	/* around end of file */
		pgoff = size / page;
		pgoff -= pgoff < 3 ? pgoff : rnd() % 3;
		len = (1 + rnd() % 40) * page;
		break;
	}
	if (len == 0)
		len = page;
	p = rnd() % 2 ? map_aligned(len, prot, flags, f->fd, pgoff * page) :
			mmap(NULL, len, prot, flags, f->fd, pgoff * page);
	if (p == MAP_FAILED) {
		error("mmap file %d pgoff %llu len %#llx: %s", f->id,
		      (unsigned long long)pgoff, (unsigned long long)len, strerror(errno));
		return;
	}
	ADD(n_maps, 1);
	check_range(f, p, pgoff * page, len, 24, "own mapping");
	if (rnd() % 3 == 0) {
		newlen = (1 + rnd() % (2 * len / page + 1)) * page;
		q = mremap(p, len, newlen, MREMAP_MAYMOVE);
		if (q == MAP_FAILED) {
			error("mremap %#llx -> %#llx: %s", (unsigned long long)len,
			      (unsigned long long)newlen, strerror(errno));
		} else {
			p = q;
			len = newlen;
			ADD(n_mremap, 1);
			check_range(f, p, pgoff * page, len, 16, "mremapped mapping");
		}
	}
	if (rnd() % 3 == 0) {
		if (mprotect(p, len, PROT_READ))
			error("mprotect: %s", strerror(errno));
		check_range(f, p, pgoff * page, len, 8, "mprotected mapping");
		if (mprotect(p, len, prot))
			error("mprotect: %s", strerror(errno));
		ADD(n_mprotect, 1);
	}
	if (rnd() % 2) {
		uint64_t sub = (rnd() % (len / page)) * page;

		advise(p + sub, len - sub, "own mapping");
		check_range(f, p, pgoff * page, len, 16, "advised mapping");
	}
	if (munmap(p, len))
		error("munmap: %s", strerror(errno));
}

/*
 * After a wrong read past end of file: is it left over from a race, or
 * does a fresh fault below end of file map past it again?  With the file
 * quiet (its mutex held), zap the 2M around end of file, read the last
 * page inside it (a fault, with fault-around), then the first page past
 * it, which must raise SIGBUS.
 */
static void probe(struct file *f, char *map)
{
	uint64_t size, last, past;
	uint8_t bytes[8];
	int bus;

	pthread_mutex_lock(&f->mu);
	size = f->cur.size;
	if (size < SZ_2M || size % page == 0) {
		pthread_mutex_unlock(&f->mu);
		return;
	}
	last = (size - 1) & ~(page - 1);
	past = last + page;
	madvise(map + (last & ~(SZ_2M - 1)) - SZ_2M, 2 * SZ_2M + SZ_2M, MADV_DONTNEED);
	read8(map + last - page, bytes);
	bus = read8(map + past, bytes);
	printf("# file_stress: probe, file %d size %#llx: after a fault at %#llx, %#llx %s\n",
	       f->id, (unsigned long long)size, (unsigned long long)(last - page),
	       (unsigned long long)past, bus ? "raises SIGBUS (right)" :
	       "reads without SIGBUS (mapped past end of file by a fresh fault)");
	pthread_mutex_unlock(&f->mu);
}

/*
 * -E: read around end of file through a mapping of the whole file, each
 * time after MADV_DONTNEED there, so every read faults (and faults
 * around) while the mutators move end of file back and forth.
 */
static void eof_reader(void)
{
	char *maps[MAXFILES];
	int i;

	for (i = 0; i < nfiles; i++) {
		maps[i] = map_aligned(MAPLEN, PROT_READ | PROT_EXEC, MAP_PRIVATE, files[i].fd, 0);
		if (maps[i] == MAP_FAILED) {
			error("mmap: %s", strerror(errno));
			return;
		}
	}
	while (!LOAD(stop)) {
		struct file *f = &files[rnd() % nfiles];
		uint64_t size = cur_size(f), lo, pos;

		lo = (size > SZ_2M / 4 ? size - SZ_2M / 4 : 0) & ~(page - 1);
		if (madvise(maps[f->id] + lo, SZ_2M / 2, MADV_DONTNEED))
			error("madvise: %s", strerror(errno));
		ADD(n_madvise, 1);
		long errs = LOAD(n_errors);

		for (i = 0; i < 16; i++) {
			pos = (lo + rnd() % (SZ_2M / 2)) & ~7UL;
			check(f, maps[f->id] + pos, pos, "end-of-file mapping");
		}
		/* The page below end of file: in a large folio? */
		if (size) {
			long pages;

			pos = (size - 1) & ~(page - 1);
			check(f, maps[f->id] + pos, pos, "end-of-file mapping");
			/*
			 * Between changes (the file's mutex): kpageflags read
			 * while a truncation splits the folio trips 6.12's
			 * VM_WARN_ON_FOLIO() in folio_large_mapcount() (from
			 * stable_page_flags(), which reads the folio twice
			 * unlocked), and panic_on_warn stops the guest.
			 */
			pthread_mutex_lock(&f->mu);
			pages = kpf_folio_pages(maps[f->id] + pos, page);
			pthread_mutex_unlock(&f->mu);
			if (pages < 0)
				ADD(n_kpf_err, 1);
			else if (pages)
				ADD(n_eof_sampled, 1);
			if (pages > 1)
				ADD(n_eof_large, 1);
		}
		if (LOAD(n_errors) != errs && LOAD(n_errors) <= 10)
			probe(f, maps[f->id]);
	}
	for (i = 0; i < nfiles; i++)
		munmap(maps[i], MAPLEN);
}

static void *reader(void *arg)
{
	rng_state = seed_for(seed, (uintptr_t)arg);
	if (eof_focus && (uintptr_t)arg % 2) {
		eof_reader();
		return NULL;
	}
	while (!LOAD(stop)) {
		struct file *f = &files[rnd() % nfiles];

		if (rnd() % 2)
			check_range(f, f->gmap, 0, MAPLEN, 64, "long-lived mapping");
		else
			own_mapping(f);
	}
	return NULL;
}

static void *advisor(void *arg)
{
	rng_state = seed_for(seed, (uintptr_t)arg);
	while (!LOAD(stop)) {
		struct file *f = &files[rnd() % nfiles];
		uint64_t off = pick_off(MAXSIZE) & ~(page - 1);
		uint64_t len = (1 + rnd() % (SZ_2M / page + 16)) * page;
		int r = rnd() % 6;

		if (off + len > MAPLEN)
			len = MAPLEN - off;
		if (r < 4) {
			advise(f->gmap + off, len, "long-lived mapping");
		} else {
			if (mprotect(f->gmap + off, len, r == 4 ? PROT_READ : PROT_READ | PROT_EXEC))
				error("mprotect long-lived: %s", strerror(errno));
			ADD(n_mprotect, 1);
		}
		usleep(2000);
	}
	return NULL;
}

static void *mutator(void *arg)
{
	rng_state = seed_for(seed, (uintptr_t)arg);
	while (!LOAD(stop)) {
		struct file *f = &files[rnd() % nfiles];

		pthread_mutex_lock(&f->mu);
		mutate(f);
		pthread_mutex_unlock(&f->mu);
		usleep(eof_focus ? rnd() % 1000 : 1000 + rnd() % 3000);
	}
	return NULL;
}

static long total_ops(void)
{
	long t = 0;
	int i;

	for (i = 0; i < NOPS; i++)
		t += LOAD(n_ops[i]);
	return t;
}

int main(int argc, char **argv)
{
	long target_ops = 2000, target_checks = 100000, min_eof = 0;
	int readers = 3, mutators = 2, advisors = 1, timeout = 120, opt, i, rc = 0;
	pthread_t th[64];
	int nth = 0;
	const char *tag = "";
	struct sigaction sa;
	char path[4096];
	double t0, t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "n:c:t:r:m:a:F:T:L:s:BE")) != -1) {
		switch (opt) {
		case 'n': target_ops = atol(optarg); break;
		case 'c': target_checks = atol(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'r': readers = atoi(optarg); break;
		case 'm': mutators = atoi(optarg); break;
		case 'a': advisors = atoi(optarg); break;
		case 'F': nfiles = atoi(optarg); break;
		case 'T': tag = optarg; break;
		case 'B': broken = 1; break;
		case 'E': eof_focus = 1; break;
		case 'L': min_eof = atol(optarg); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: file_stress [-n ops] [-c checks] [-t secs] [-r readers] "
				"[-m mutators] [-a advisors] [-F files] [-T tag] [-s seed] [-E [-L min]] [-B] DIR\n");
			return 2;
		}
	}
	if (optind != argc - 1 || nfiles < 1 || nfiles > MAXFILES ||
	    readers + mutators + advisors > 64 || (min_eof && !eof_focus)) {
		fprintf(stderr, "file_stress: bad arguments\n");
		return 2;
	}
	page = sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	/* SA_NODEFER: the handler longjmps out, SIGBUS must stay unblocked. */
	sa.sa_handler = bus_handler;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGBUS, &sa, NULL);
	sa.sa_sigaction = segv_handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	if (!seed)
		seed = (unsigned long)(now() * 1e6) ^ ((unsigned long)getpid() << 32);
	printf("# file_stress%s: seed %lu (-s %lu makes the same choices; the threads' timing is the kernel's)\n",
	       tag, seed, seed);
	rng_state = seed_for(seed, 0);

	for (i = 0; i < nfiles; i++) {
		struct file *f = &files[i];
		uint64_t size = 4 * SZ_2M / 2 + 1234 + rnd() % SZ_64K;

		f->id = i;
		pthread_mutex_init(&f->mu, NULL);
		snprintf(path, sizeof(path), "%s/file_stress.%d", argv[optind], i);
		/* Opening a lower file for write copies it up on overlayfs. */
		f->fd = open(path, O_RDWR | O_CREAT, 0755);
		if (f->fd < 0 || ftruncate(f->fd, 0)) {
			fprintf(stderr, "file_stress: %s: %s\n", path, strerror(errno));
			return 2;
		}
		f->gen = 1;
		state_set(&f->cur, 0, size, 1);
		f->cur.size = size;
		f->cur.op = -1;
		f->hist[0] = f->cur;
		do_pwrite(f, 0, size, 1);
		f->gmap = map_aligned(MAPLEN, PROT_READ | PROT_EXEC, MAP_PRIVATE, f->fd, 0);
		if (f->gmap == MAP_FAILED) {
			fprintf(stderr, "file_stress: mmap: %s\n", strerror(errno));
			return 2;
		}
	}
	t0 = now();
	for (i = 0; i < readers + mutators + advisors; i++) {
		void *(*fn)(void *) = i < readers ? reader : i < readers + mutators ? mutator : advisor;

		if (pthread_create(&th[nth], NULL, fn, (void *)(uintptr_t)(i + 1))) {
			fprintf(stderr, "file_stress: pthread_create failed\n");
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
			rc = 2;
			break;
		}
		nth++;
	}
	for (;;) {
		usleep(50000);
		t = now() - t0;
		if (LOAD(n_errors) >= 10)
			break;
		if (total_ops() >= target_ops && LOAD(n_checks) >= target_checks)
			break;
		if (t > timeout) {
			rc = 2;
			break;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	t = now() - t0;
	printf("# file_stress%s: %ld changes (", tag, total_ops());
	for (i = 0; i < NOPS; i++)
		printf("%s%s %ld", i ? ", " : "", op_names[i], LOAD(n_ops[i]));
	printf(") in %.1f s\n", t);
	printf("# file_stress%s: %ld reads checked (%ld SIGBUS past end of file, %ld across a change, "
	       "%ld unverifiable), %ld mappings, %ld mremap, %ld mprotect, %ld madvise; %ld errors\n",
	       tag, LOAD(n_checks), LOAD(n_bus), LOAD(n_multi), LOAD(n_unverified), LOAD(n_maps),
	       LOAD(n_mremap), LOAD(n_mprotect), LOAD(n_madvise), LOAD(n_errors));
	if (rc == 2)
		printf("# file_stress%s: counts not reached in %d s (wanted %ld changes, %ld reads)\n",
		       tag, timeout, target_ops, target_checks);
	if (eof_focus) {
		printf("# file_stress%s: end of file: %ld reads a change of it overlapped; "
		       "the page below it in a large folio %ld times of %ld (%ld not looked up)\n",
		       tag, LOAD(n_eof_race), LOAD(n_eof_large), LOAD(n_eof_sampled), LOAD(n_kpf_err));
		if (!rc && (LOAD(n_eof_race) < min_eof || LOAD(n_eof_large) < min_eof)) {
			printf("# file_stress%s: the race did not run: wanted at least %ld of each\n",
			       tag, min_eof);
			rc = 3;
		}
	}
	for (i = 0; i < nfiles; i++) {
		munmap(files[i].gmap, MAPLEN);
		close(files[i].fd);
	}
	if (LOAD(n_errors))
		rc = 1;
	return rc;
}
