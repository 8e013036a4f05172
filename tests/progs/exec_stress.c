// SPDX-License-Identifier: GPL-2.0
/*
 * exec_stress [options] BINARY...: exec large-text programs in a loop
 * while the exec folio policy changes under them.
 *
 * Each BINARY is a checktext (SEED [POLICY] -> exit 64 + SEED % 64 after
 * checking its text).  Processes, until both counts are reached or the
 * time runs out:
 *   -w N  exec workers: vfork + exec a random BINARY, check its exit code;
 *   -f N  prctl workers: set their own PR_SET_EXEC_FOLIO_SIZE to a random
 *         mode or order (and check PR_GET), fork a child that may set
 *         another, exec a BINARY that checks the policy it inherited;
 *   one knob writer (unless -K): writes every value the exec_folio_size knob
 *         accepts, in order and then shuffled, reads each back, and now
 *         and then a value it must refuse;
 *   one cache dropper (-d MS, 0 for none): echo 3 > drop_caches.
 * -n EXECS (10000) execs in all, -p WRITES (1000) knob writes, -t SECS (150)
 * time cap, -s SEED (printed; from the clock if not given: the same seed
 * makes the same choices, not the same interleaving).  Prints "# " lines with what it did; exit status 0 if every
 * exec was correct and both counts were reached in time, 1 on a wrong
 * result, 2 if the counts were not reached, 3 if a worker hung.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "seed.h"

#ifndef PR_SET_EXEC_FOLIO_SIZE
#define PR_SET_EXEC_FOLIO_SIZE 0x45584653
#define PR_GET_EXEC_FOLIO_SIZE 0x45584647
#endif
#define KNOB "/sys/kernel/mm/transparent_hugepage/exec_folio_size"

struct shared {
	long execs, exec_fail, prctl_execs, knob_writes, knob_fail;
	long prctl_sets, prctl_fail, drops, errors_printed;
	int stop;
};

static struct shared *sh;
static char **bins;
static int nbins;
static int max_order;

#define ADD(field, n) __atomic_add_fetch(&sh->field, (n), __ATOMIC_RELAXED)
#define GET(field) __atomic_load_n(&sh->field, __ATOMIC_RELAXED)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long rng_state;
static unsigned long run_seed;	/* -s: each process's choices follow from it */

static unsigned long rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void error(const char *fmt, ...)
{
	va_list ap;

	if (ADD(errors_printed, 1) > 30)
		return;
	va_start(ap, fmt);
	fputs("exec_stress: ERROR: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	va_end(ap);
}

/* Check a checktext's wait status; true if right. */
static int judge(const char *bin, unsigned long seed, int status, long policy)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == (int)(64 + seed % 64))
		return 1;
	if (WIFEXITED(status))
		error("%s %lu (policy %ld): exit %d, expected %lu", bin, seed, policy,
		      WEXITSTATUS(status), 64 + seed % 64);
	else
		error("%s %lu (policy %ld): killed by signal %d", bin, seed, policy,
		      WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	return 0;
}

/* vfork and exec @bin @arg; the child only execs. */
static __attribute__((noinline)) pid_t spawn(const char *bin, const char *arg)
{
	pid_t pid = vfork();

	if (pid == 0) {
		execl(bin, bin, arg, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void exec_worker(void)
{
	char seedbuf[32];

	while (!GET(stop)) {
		const char *bin = bins[rnd() % nbins];
		unsigned long seed = rnd() % 1000000;
		int status;
		pid_t pid;

		snprintf(seedbuf, sizeof(seedbuf), "%lu", seed);
		pid = spawn(bin, seedbuf);
		if (pid < 0) {
			error("vfork: %s", strerror(errno));
			ADD(exec_fail, 1);
			usleep(10000);
			continue;
		}
		if (waitpid(pid, &status, 0) != pid) {
			error("waitpid: %s", strerror(errno));
			ADD(exec_fail, 1);
			continue;
		}
		if (!judge(bin, seed, status, -1))
			ADD(exec_fail, 1);
		ADD(execs, 1);
	}
}

/*
 * A random policy as PR_SET's argument, which PR_GET must return: one of
 * the four modes, or a folio size in bytes.
 */
static long random_policy(void)
{
	long mode = rnd() % 5;

	if (mode < 4)
		return mode;
	return sysconf(_SC_PAGESIZE) << (2 + rnd() % (max_order - 1));
}

static int set_policy(long *want)
{
	long got;

	*want = random_policy();
	if (prctl(PR_SET_EXEC_FOLIO_SIZE, *want, 0, 0, 0)) {
		error("PR_SET_EXEC_FOLIO_SIZE %#lx: %s", *want, strerror(errno));
		ADD(prctl_fail, 1);
		return -1;
	}
	got = prctl(PR_GET_EXEC_FOLIO_SIZE, 0, 0, 0, 0);
	ADD(prctl_sets, 1);
	if (got != *want) {
		error("PR_GET_EXEC_FOLIO_SIZE %ld after setting %ld", got, *want);
		ADD(prctl_fail, 1);
		return -1;
	}
	return 0;
}

static void prctl_worker(void)
{
	char seedbuf[32], polbuf[32];

	while (!GET(stop)) {
		const char *bin = bins[rnd() % nbins];
		unsigned long seed = rnd() % 1000000;
		long want;
		int status;
		pid_t pid;

		if (set_policy(&want))
			continue;
		/* Now and then an invalid one, which must change nothing. */
		if (rnd() % 8 == 0) {
			long over = sysconf(_SC_PAGESIZE) << (max_order + 1);

			if (prctl(PR_SET_EXEC_FOLIO_SIZE, over, 0, 0, 0) != -1 ||
			    errno != EINVAL || prctl(PR_SET_EXEC_FOLIO_SIZE, 4, 0, 0, 0) != -1 ||
			    prctl(PR_GET_EXEC_FOLIO_SIZE, 0, 0, 0, 0) != want) {
				error("an invalid PR_SET_EXEC_FOLIO_SIZE was accepted");
				ADD(prctl_fail, 1);
			}
		}
		snprintf(seedbuf, sizeof(seedbuf), "%lu", seed);
		pid = fork();
		if (pid == 0) {
			rng_state = seed_for(run_seed, rng_state);
			if (rnd() % 2 && set_policy(&want))
				_exit(126);
			snprintf(polbuf, sizeof(polbuf), "%ld", want);
			execl(bin, bin, seedbuf, polbuf, (char *)NULL);
			_exit(127);
		}
		if (pid < 0) {
			error("fork: %s", strerror(errno));
			ADD(exec_fail, 1);
			usleep(10000);
			continue;
		}
		if (waitpid(pid, &status, 0) != pid) {
			error("waitpid: %s", strerror(errno));
			ADD(exec_fail, 1);
			continue;
		}
		/* The child's exit code says which policy it saw (4: wrong). */
		if (!judge(bin, seed, status, want))
			ADD(exec_fail, 1);
		ADD(execs, 1);
		ADD(prctl_execs, 1);
	}
}

static int read_knob(char *buf, size_t len)
{
	int fd = open(KNOB, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int write_knob(const char *word)
{
	int fd = open(KNOB, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, word, strlen(word));
	close(fd);
	return n == (ssize_t)strlen(word) ? 0 : -1;
}

/* The active word of the knob ("[auto]") into @out. */
static int knob_active(char *out, size_t len)
{
	char buf[512], *a, *b;

	if (read_knob(buf, sizeof(buf)))
		return -1;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!b || (size_t)(b - a) >= len)
		return -1;
	memcpy(out, a + 1, b - a - 1);
	out[b - a - 1] = 0;
	return 0;
}

static int knob_words(char words[][16], int max)
{
	char buf[512], *tok, *save;
	int n = 0;

	if (read_knob(buf, sizeof(buf)))
		return 0;
	for (tok = strtok_r(buf, " \n[]", &save); tok && n < max;
	     tok = strtok_r(NULL, " \n[]", &save))
		snprintf(words[n++], 16, "%s", tok);
	return n;
}

static void knob_writer(long target)
{
	char words[32][16], got[32];
	int n = knob_words(words, 32), i, round = 0;

	if (n < 4) {
		error("cannot read the accepted values of %s", KNOB);
		ADD(knob_fail, 1);
		return;
	}
	while (!GET(stop)) {
		for (i = 0; i < n && !GET(stop); i++) {
			int k = round % 2 ? (int)(rnd() % n) : i;

			if (write_knob(words[k]) || knob_active(got, sizeof(got)) ||
			    strcmp(got, words[k])) {
				error("wrote %s to exec_folio_size, it shows %s", words[k], got);
				ADD(knob_fail, 1);
			}
			/*
			 * Paced: a write can flip the static key, which
			 * patches kernel text and stops every CPU; slower
			 * still once enough were done.
			 */
			if (ADD(knob_writes, 1) > target)
				usleep(200000);
			else
				usleep(50000);
		}
		if (round++ % 4 == 0) {
			char before[32];

			knob_active(before, sizeof(before));
			if (!write_knob("4M") || !write_knob("bogus") ||
			    knob_active(got, sizeof(got)) || strcmp(got, before)) {
				error("exec_folio_size accepted an invalid value or changed (%s -> %s)",
				      before, got);
				ADD(knob_fail, 1);
			}
		}
	}
}

static void dropper(int ms)
{
	int fd;

	/* Once "4": the kernel stops logging each drop. */
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "4", 1) != 1)
			error("drop_caches: %s", strerror(errno));
		close(fd);
	}
	while (!GET(stop)) {
		usleep(ms * 1000);
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
		if (fd < 0 || write(fd, "3", 1) != 1)
			error("drop_caches: %s", strerror(errno));
		else
			ADD(drops, 1);
		if (fd >= 0)
			close(fd);
	}
}

static int probe_max_order(void)
{
	int o, max = 0;

	for (o = 2; o < 24; o++)
		if (prctl(PR_SET_EXEC_FOLIO_SIZE, sysconf(_SC_PAGESIZE) << o, 0, 0, 0) == 0)
			max = o;
	prctl(PR_SET_EXEC_FOLIO_SIZE, 0, 0, 0, 0);
	return max;
}

int main(int argc, char **argv)
{
	long target_execs = 10000, target_writes = 1000;
	int workers = 3, pworkers = 2, drop_ms = 500, knob = 1, timeout = 150;
	int opt, nproc = 0, i, rc = 0, hung = 0;
	char orig[32] = "";
	pid_t pids[64];
	double t0, t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "n:p:t:w:f:d:s:K")) != -1) {
		switch (opt) {
		case 'n': target_execs = atol(optarg); break;
		case 'p': target_writes = atol(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'w': workers = atoi(optarg); break;
		case 'f': pworkers = atoi(optarg); break;
		case 'd': drop_ms = atoi(optarg); break;
		case 'K': knob = 0; target_writes = 0; break;
		case 's': run_seed = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: exec_stress [-n execs] [-p knob-writes] [-t secs] "
				"[-w exec-workers] [-f prctl-workers] [-d drop-ms] [-s seed] [-K] BINARY...\n");
			return 2;
		}
	}
	bins = argv + optind;
	nbins = argc - optind;
	if (nbins < 1 || workers + pworkers + 2 > 64) {
		fprintf(stderr, "exec_stress: no binary, or too many workers\n");
		return 2;
	}
	for (i = 0; i < nbins; i++)
		if (access(bins[i], X_OK)) {
			fprintf(stderr, "exec_stress: %s: %s\n", bins[i], strerror(errno));
			return 2;
		}
	max_order = probe_max_order();
	if (pworkers && max_order < 2) {
		fprintf(stderr, "exec_stress: PR_SET_EXEC_FOLIO_SIZE is not supported\n");
		return 2;
	}
	if (knob && knob_active(orig, sizeof(orig))) {
		fprintf(stderr, "exec_stress: cannot read %s\n", KNOB);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	t0 = now();
	if (!run_seed)
		run_seed = (unsigned long)(t0 * 1e6) ^ ((unsigned long)getpid() << 32);
	printf("# exec_stress: seed %lu (-s %lu makes the same choices; the processes' timing is the kernel's)\n",
	       run_seed, run_seed);
	for (i = 0; i < workers + pworkers + 2; i++) {
		int role = i < workers ? 0 : i < workers + pworkers ? 1 : i - workers - pworkers + 2;
		pid_t pid;

		if ((role == 2 && !knob) || (role == 3 && !drop_ms))
			continue;
		pid = fork();
		if (pid == 0) {
			rng_state = seed_for(run_seed, i);
			if (role == 0)
				exec_worker();
			else if (role == 1)
				prctl_worker();
			else if (role == 2)
				knob_writer(target_writes);
			else
				dropper(drop_ms);
			_exit(0);
		}
		if (pid < 0) {
			perror("exec_stress: fork");
			__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
			rc = 2;
			break;
		}
		pids[nproc++] = pid;
	}
	for (;;) {
		usleep(50000);
		t = now() - t0;
		if (GET(execs) >= target_execs && GET(knob_writes) >= target_writes)
			break;
		if (t > timeout) {
			rc = 2;
			break;
		}
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	t = now() - t0;
	/* Workers finish their current exec; one that does not is hung. */
	for (i = 0; i < nproc; i++) {
		double deadline = now() + 30;
		int status;

		while (waitpid(pids[i], &status, WNOHANG) == 0) {
			if (now() > deadline) {
				error("worker %d did not stop within 30 s", pids[i]);
				kill(pids[i], SIGKILL);
				waitpid(pids[i], &status, 0);
				hung = 1;
				break;
			}
			usleep(20000);
		}
		if (!hung && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			error("worker %d ended with status %#x", pids[i], status);
			rc = rc ? rc : 1;
		}
	}
	if (knob && orig[0] && write_knob(orig))
		error("cannot restore exec_folio_size %s", orig);
	printf("# exec_stress: %ld execs (%ld with a prctl policy) of %d binaries, "
	       "%ld knob writes, %ld prctl sets, %ld drop_caches in %.1f s, %d+%d workers\n",
	       GET(execs), GET(prctl_execs), nbins, GET(knob_writes), GET(prctl_sets),
	       GET(drops), t, workers, pworkers);
	printf("# exec_stress: %ld wrong exec results, %ld knob errors, %ld prctl errors\n",
	       GET(exec_fail), GET(knob_fail), GET(prctl_fail));
	if (GET(exec_fail) || GET(knob_fail) || GET(prctl_fail))
		rc = 1;
	if (hung)
		rc = 3;
	if (rc == 2)
		printf("# exec_stress: counts not reached in %d s (wanted %ld execs, %ld knob writes)\n",
		       timeout, target_execs, target_writes);
	return rc;
}
