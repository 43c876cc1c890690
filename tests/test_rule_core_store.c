/* test_rule_core_store.c - rules of core/store.c that only other folders'
 * suites used to reach, each pinned on its own (found by make mutate,
 * docs/mutation.md): the message of every kb_store_get outcome, the
 * longest names a walk hands out, reads that leave nothing allocated, the
 * modes of a new store's folders and files, and a read with every reader
 * slot taken.  Expectations are written out by hand, never computed with the code under
 * test. */
#include <criterion/criterion.h>
#include <errno.h>
#include <dlfcn.h>
#include <lmdb.h>
#include <malloc.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/record.h"
#include "core/store.h"
#include "support.h"

/* A test double for what no test can make LMDB do on demand: another
 * process growing the map between every one of this process's begins.
 * While resized_begins is above 0, mdb_txn_begin (this definition takes
 * the place of LMDB's for the whole test binary) answers MDB_MAP_RESIZED
 * and counts down; otherwise it hands the call to LMDB. */
static int resized_begins;
/* Likewise: while panicked_begins is above 0, an error no remedy helps. */
static int panicked_begins;

int mdb_txn_begin(MDB_env *env, MDB_txn *parent, unsigned int flags, MDB_txn **txn)
{
	static int (*lmdb_begin)(MDB_env *, MDB_txn *, unsigned int, MDB_txn **);

	if (resized_begins > 0 || panicked_begins > 0) {
		int rc = resized_begins > 0 ? MDB_MAP_RESIZED : MDB_PANIC;
		*(resized_begins > 0 ? &resized_begins : &panicked_begins) -= 1;
		*txn = NULL;
		return rc;
	}
	if (!lmdb_begin)
		*(void **)&lmdb_begin = dlsym(RTLD_NEXT, "mdb_txn_begin");
	return lmdb_begin(env, parent, flags, txn);
}

/* And for another race: writers committing twice while a frozen store
 * (no lock file, no reader slot) is read.  While changed_snapshots is
 * above 0, mdb_env_info reports the last transaction two past what LMDB
 * says, as after two commits, and counts down. */
static int changed_snapshots;

int mdb_env_info(MDB_env *env, MDB_envinfo *stat)
{
	static int (*lmdb_info)(MDB_env *, MDB_envinfo *);

	if (!lmdb_info)
		*(void **)&lmdb_info = dlsym(RTLD_NEXT, "mdb_env_info");
	int rc = lmdb_info(env, stat);
	if (changed_snapshots > 0) {
		changed_snapshots--;
		stat->me_last_txnid += 2;
	}
	return rc;
}

/* And for a cursor LMDB cannot open (out of memory): while
 * failed_cursors is above 0, mdb_cursor_open fails with ENOMEM and counts
 * down (support.h: the state suite's listing tests set it too). */
int failed_cursors;

int mdb_cursor_open(MDB_txn *txn, MDB_dbi dbi, MDB_cursor **cursor)
{
	static int (*lmdb_cursor_open)(MDB_txn *, MDB_dbi, MDB_cursor **);

	if (failed_cursors > 0) {
		failed_cursors--;
		*cursor = NULL;
		return ENOMEM;
	}
	if (!lmdb_cursor_open)
		*(void **)&lmdb_cursor_open = dlsym(RTLD_NEXT, "mdb_cursor_open");
	return lmdb_cursor_open(txn, dbi, cursor);
}

/* A new store in a fresh folder dir holding one opponent record: kim,
 * 2 games. */
static kb_store *store_with_kim(char *dir, size_t size)
{
	kb_store *st;
	kb_err err;
	kb_store_add kim = {.name = "kim", .opponent = 1, .delta.games = 2};

	test_tmpdir(dir, size);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_apply(st, &kim, 1, NULL, &err), 0, "%s", err.msg);
	return st;
}

/* Bytes the C library's allocator holds for the program. */
static size_t heap_held(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

/* A folder that cannot be created (a file is in the way) is named as
 * such, with the system's reason, and no store is opened; both levels:
 * the file itself, and a folder below it. */
Test(core_rules, store_folder_that_cannot_be_created)
{
	char dir[256], path[400], want[600];
	kb_store *st = (kb_store *)&st;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/file", dir);
	test_write_file(path, "not a folder\n");
	snprintf(path, sizeof path, "%s/file/store", dir);
	cr_assert_eq(kb_store_open(&st, path, KB_STORE_CREATE, NULL, &err), KB_STORE_ERROR);
	snprintf(want, sizeof want, "store %s: cannot create the folder: Not a directory", path);
	cr_assert_str_eq(err.msg, want);
	cr_assert_null(st);
	snprintf(path, sizeof path, "%s/file/a/b", dir);
	cr_assert_eq(kb_store_open(&st, path, KB_STORE_CREATE, NULL, &err), KB_STORE_ERROR);
	snprintf(want, sizeof want, "store %s: cannot create the folder: Not a directory", path);
	cr_assert_str_eq(err.msg, want);
}

/* Each failed read names the opponent and what is wrong with its record;
 * a record read whole leaves the caller's message as it was. */
Test(core_rules, store_get_names_each_failure)
{
	char dir[256];
	kb_store *st = store_with_kim(dir, sizeof dir);
	kb_opp_rec got;
	kb_err err;
	static const uint8_t newer[8] = {KB_REC_OPPONENT, 0, 9, 0, 0, 0, 0, 0};
	static const uint8_t cut[3] = {KB_REC_OPPONENT, 0, 3};

	cr_assert_eq(kb_store_put_raw(st, "zed", newer, sizeof newer, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_put_raw(st, "cut", cut, sizeof cut, &err), 0, "%s", err.msg);

	strcpy(err.msg, "untouched");
	cr_assert_eq(kb_store_get(st, "kim", &got, &err), KB_REC_OK);
	cr_assert_eq(got.games, 2);
	cr_assert_str_eq(err.msg, "untouched");
	cr_assert_eq(kb_store_get(st, "zed", &got, &err), KB_REC_NEWER);
	cr_assert(strstr(err.msg, "opponent zed was written by a newer kimble-state format"), "%s",
		  err.msg);
	cr_assert_eq(kb_store_get(st, "cut", &got, &err), KB_REC_BAD);
	cr_assert(strstr(err.msg, "opponent cut: damaged record"), "%s", err.msg);
	kb_store_close(st);
}

/* Each results record a walk visits, as a line "VERSION/NAME". */
static int on_results(void *ctx, const char *version, const char *name, const kb_res_rec *rec,
		      int status)
{
	char *lines = ctx;
	size_t used = strlen(lines);

	(void)rec, (void)status;
	snprintf(lines + used, 400 - used, "%s/%s\n", version, name);
	return 0;
}

/* A walk hands out a version and an opponent name of KB_NAME_MAX (64)
 * characters each, whole. */
Test(core_rules, store_walk_hands_out_the_longest_names)
{
	char dir[256];
	kb_store *st = store_with_kim(dir, sizeof dir);
	kb_err err;
	kb_store_add a;
	static const char version[] = "v0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde";
	static const char name[] = "n0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDE";

	cr_assert_eq(strlen(version), 64);
	cr_assert_eq(strlen(name), 64);
	memset(&a, 0, sizeof a);
	a.name = name, a.version = version, a.delta.games = 1;
	cr_assert_eq(kb_store_apply(st, &a, 1, NULL, &err), 0, "%s", err.msg);
	char seen[400] = "", want[200];
	kb_store_visitor vis = {NULL, on_results, seen};
	cr_assert_eq(kb_store_each(st, &vis, &err), 0, "%s", err.msg);
	snprintf(want, sizeof want, "%s/%s\n", version, name);
	cr_assert_str_eq(seen, want);
	kb_store_close(st);
}

/* Reading a store's digest again and again holds no more memory: each
 * read's cursor is closed (LMDB frees a read-only transaction's cursors
 * only when asked). */
Test(core_rules, store_digest_leaves_nothing_allocated)
{
	char dir[256];
	kb_store *st = store_with_kim(dir, sizeof dir);
	kb_err err;
	uint64_t digest;

	for (int i = 0; i < 8; i++) /* the allocator's caches fill */
		cr_assert_eq(kb_store_digest(st, &digest, &err), 0, "%s", err.msg);
	size_t before = heap_held();
	for (int i = 0; i < 32; i++)
		cr_assert_eq(kb_store_digest(st, &digest, &err), 0, "%s", err.msg);
	cr_assert_eq(heap_held(), before, "32 digests held %zu bytes more", heap_held() - before);
	kb_store_close(st);
}

/* A new store's folders are made rwxr-xr-x and its files rw-r--r--, as
 * far as the umask allows. */
Test(core_rules, store_files_modes)
{
	char dir[256], path[400];
	kb_store *st;
	kb_err err;
	struct stat sb;

	test_tmpdir(dir, sizeof dir);
	strcat(dir, "/made/here");
	umask(0);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	kb_store_close(st);
	cr_assert_eq(stat(dir, &sb), 0, "%s", dir);
	cr_assert_eq(sb.st_mode & 07777, 0755, "folder mode %o", sb.st_mode & 07777);
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	cr_assert_eq(stat(path, &sb), 0, "%s", path);
	cr_assert_eq(sb.st_mode & 07777, 0644, "data.mdb mode %o", sb.st_mode & 07777);
	umask(027);
	*strrchr(dir, '/') = '\0';
	strcat(dir, "/second");
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	kb_store_close(st);
	snprintf(path, sizeof path, "%s/data.mdb", dir);
	cr_assert_eq(stat(path, &sb), 0, "%s", path);
	cr_assert_eq(sb.st_mode & 07777, 0640, "data.mdb mode %o under umask 027", sb.st_mode & 07777);
}

/* A child that opens the store folder dir with LMDB itself and holds read
 * transactions until the reader table is full, then waits (alive) until
 * *release is closed.  Returns its pid; *held is how many it holds. */
static pid_t fill_readers(const char *dir, int *held, int *release)
{
	int ready[2], hold[2];

	cr_assert_eq(pipe(ready), 0);
	cr_assert_eq(pipe(hold), 0);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		MDB_env *env;
		MDB_txn *txn;
		int n = 0;
		char c;
		close(ready[0]), close(hold[1]);
		if (mdb_env_create(&env) || mdb_env_open(env, dir, MDB_NOTLS | MDB_RDONLY, 0644))
			_exit(1);
		while (n < 10000 && mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) == 0)
			n++;
		if (write(ready[1], &n, sizeof n) != sizeof n)
			_exit(1);
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]), close(hold[0]);
	cr_assert_eq(read(ready[0], held, sizeof *held), (ssize_t)sizeof *held);
	close(ready[0]);
	*release = hold[1];
	return pid;
}

/* A read finding the reader table full of live readers (no slot of a
 * crashed process to clear) fails with a store error that says why. */
Test(core_rules, store_read_with_every_reader_slot_taken, .timeout = 30)
{
	char dir[256];
	kb_store *st = store_with_kim(dir, sizeof dir);
	kb_opp_rec got;
	kb_err err;
	int held = 0, release, status;

	kb_store_close(st);
	pid_t child = fill_readers(dir, &held, &release);
	cr_assert_gt(held, 0);
	cr_assert_lt(held, 10000, "the reader table has a bound");
	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), 0, "%s", err.msg);
	err.msg[0] = '\0';
	cr_assert_eq(kb_store_get(st, "kim", &got, &err), KB_STORE_ERROR);
	cr_assert(strstr(err.msg, ": cannot read: MDB_READERS_FULL"), "%s", err.msg);
	kb_store_close(st);
	close(release);
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* One write larger than the map can grow to in its eight attempts (32 KiB
 * doubled seven times: 4 MiB; 6000 opponent records of a kilobyte and more
 * each) fails as a full map, although the bound (1 GiB) is far, and
 * nothing of it is committed. */
Test(core_rules, store_write_too_large_for_the_attempts_fails, .timeout = 60)
{
	enum { N = 6000 };
	char dir[256];
	static char names[N][16];
	static kb_store_add adds[N];
	kb_store_opts opts = {32 << 10, 1 << 30, NULL};
	kb_store *st;
	kb_opp_rec got;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, &opts, &err), 0, "%s", err.msg);
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof names[i], "o%04d", i);
		adds[i].name = names[i], adds[i].opponent = 1, adds[i].delta.games = 1;
	}
	err.msg[0] = '\0';
	cr_assert_eq(kb_store_apply(st, adds, N, NULL, &err), KB_STORE_ERROR);
	cr_assert(strstr(err.msg, ": write failed: MDB_MAP_FULL"), "%s", err.msg);
	cr_assert_eq(kb_store_get(st, "o0000", &got, &err), KB_STORE_ABSENT);
	kb_store_close(st);
}

static int on_opponent(void *ctx, const char *name, const kb_opp_rec *rec, int status)
{
	char *lines = ctx;
	size_t used = strlen(lines);

	(void)rec, (void)status;
	snprintf(lines + used, 400 - used, "%s\n", name);
	return 0;
}

/* Walk st (opponents and results), compare what it hands out, one line
 * each, with want, and close st. */
static void walk_sees_then_close(kb_store *st, const char *want)
{
	char seen[400] = "";
	kb_store_visitor vis = {on_opponent, on_results, seen};
	kb_err err;

	cr_assert_eq(kb_store_each(st, &vis, &err), 0, "%s", err.msg);
	cr_assert_str_eq(seen, want);
	kb_store_close(st);
}

/* Only a key "o/NAME" holds an opponent: a key that merely starts with an
 * 'o' (here "ox" + a name, written past the store's API with LMDB itself)
 * is not handed out as one. */
Test(core_rules, store_walk_takes_only_o_slash_keys_as_opponents)
{
	char dir[256];
	kb_store *st = store_with_kim(dir, sizeof dir);
	kb_err err;
	const test_record oxann = {"oxann", "abc", 3};

	kb_store_close(st);
	test_lmdb_put(dir, &oxann, 1);
	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), 0, "%s", err.msg);
	walk_sees_then_close(st, "kim\n");
}

/* FNV-1a 64 of len bytes, from h (written out here, not core/hash.h's). */
static uint64_t fnv_by_hand(uint64_t h, const void *data, size_t len)
{
	const unsigned char *byte = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ byte[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t fnv_part(uint64_t h, const char *bytes, size_t len)
{
	unsigned char le[4] = {(unsigned char)len, (unsigned char)(len >> 8), (unsigned char)(len >> 16),
			       (unsigned char)(len >> 24)};

	return fnv_by_hand(fnv_by_hand(h, le, 4), bytes, len);
}

/* The digest is FNV-1a 64 over the records in key order, each as its
 * key's length (4 bytes, little-endian), key, value length and value
 * (store.h): lengths of 300 and 70,000 bytes (two and three bytes of
 * length), in an environment written with LMDB itself, which any
 * environment may be. */
Test(core_rules, store_digest_hashes_every_byte_of_each_length)
{
	static char small[300], large[70000];
	char dir[256];
	kb_store *st;
	kb_err err;
	uint64_t digest;
	const test_record rec[2] = {{"k2", large, sizeof large}, {"k1", small, sizeof small}};

	memset(small, 's', sizeof small);
	memset(large, 'L', sizeof large);
	test_tmpdir(dir, sizeof dir);
	test_lmdb_put(dir, rec, 2);
	uint64_t want = fnv_part(fnv_part(0xcbf29ce484222325ull, "k1", 2), small, sizeof small);
	want = fnv_part(fnv_part(want, "k2", 2), large, sizeof large);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_FROZEN, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_digest(st, &digest, &err), 0, "%s", err.msg);
	cr_assert_eq(digest, want, "%016llx, not %016llx", (unsigned long long)digest, (unsigned long long)want);
	kb_store_close(st);
}

/* Resetting an opponent whose name has the longest length (64) deletes its
 * record and its results under a version of 64 characters too (each
 * results key "v/VERSION/NAME" is split into buffers that hold them: the
 * ASan build checks that they do). */
Test(core_rules, store_reset_of_the_longest_names)
{
	char dir[256];
	kb_store *st = store_with_kim(dir, sizeof dir);
	kb_err err;
	kb_store_add a[2];
	long deleted = -1;
	static const char version[] = "v0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde";
	static const char name[] = "n0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDE";

	memset(a, 0, sizeof a);
	a[0].name = name, a[0].opponent = 1, a[0].delta.games = 1;
	a[1].name = name, a[1].version = version, a[1].delta.games = 1;
	cr_assert_eq(kb_store_apply(st, a, 2, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(kb_store_reset(st, name, &deleted, &err), 0, "%s", err.msg);
	cr_assert_eq(deleted, 2);
	walk_sees_then_close(st, "kim\n");
}

/* With no memory left for the store's handle, kb_store_open fails with
 * KB_STORE_ERROR, names the folder and says why, and hands out no store.
 * The heap is filled first (blocks down to pointer size, under an
 * address-space limit 1 MB above what the process uses) and given back
 * before the assertions.  (Not under ASan, whose allocator aborts instead
 * of returning NULL.) */
Test(core_rules, store_open_out_of_memory)
{
#ifdef __SANITIZE_ADDRESS__
	cr_skip_test("ASan's allocator does not return NULL");
#endif
	char dir[256];
	kb_store *st = (kb_store *)&st;
	kb_err err;
	unsigned long pages = 0;
	void *hoard = NULL, *p;
	FILE *statm = fopen("/proc/self/statm", "r");

	test_tmpdir(dir, sizeof dir);
	cr_assert(statm);
	cr_assert_eq(fscanf(statm, "%lu", &pages), 1);
	fclose(statm);
	struct rlimit rl = {.rlim_cur = pages * (unsigned long)sysconf(_SC_PAGESIZE) + (1u << 20)};
	rl.rlim_max = rl.rlim_cur;
	cr_assert_eq(setrlimit(RLIMIT_AS, &rl), 0);
	for (size_t size = 1u << 16; size >= sizeof(void *); size /= 2)
		while ((p = malloc(size))) {
			*(void **)p = hoard;
			hoard = p;
		}
	err.msg[0] = '\0';
	int rc = kb_store_open(&st, dir, KB_STORE_CREATE, NULL, &err);
	while (hoard) {
		p = *(void **)hoard;
		free(hoard);
		hoard = p;
	}
	cr_assert_eq(rc, KB_STORE_ERROR);
	cr_assert_null(st);
	char want[300];
	snprintf(want, sizeof want, "store %s: out of memory", dir);
	cr_assert_str_eq(err.msg, want);
}

/* kb_store_path copies the path and its terminating NUL, nothing more: a
 * buffer of exactly the path's size + 1 is enough, and the byte after it
 * (here the source's next byte is 'Z') is left alone. */
Test(core_rules, store_path_copies_exactly_the_path)
{
	char src[16] = "1234567", buf[16];

	src[8] = 'Z';
	memset(buf, 'x', sizeof buf);
	cr_assert_str_eq(kb_store_path(src, buf, 8), "1234567");
	cr_assert_eq(buf[8], 'x', "byte after the NUL written: %c", buf[8]);
}

/* A store path longer than the store keeps (511 characters: a 512-byte
 * buffer less its NUL) is refused with a message naming that bound. */
Test(core_rules, store_open_names_the_longest_path)
{
	char dir[600];
	kb_store *st = (kb_store *)&st;
	kb_err err;

	memset(dir, 'd', sizeof dir - 1);
	dir[sizeof dir - 1] = '\0';
	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), KB_STORE_ERROR);
	cr_assert_null(st);
	cr_assert(strstr(err.msg, ": expected at most 511 characters"), "%s", err.msg);
}

/* A store rides out three begins in a row that find the map resized by
 * another process, and gives up on the fourth (its bound of attempts):
 * kb_store_open then fails naming LMDB's reason. */
Test(core_rules, store_begin_gives_up_after_four_resized_maps)
{
	char dir[256];
	kb_store *st;
	kb_err err;

	test_tmpdir(dir, sizeof dir);
	resized_begins = 3;
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_CREATE, NULL, &err), 0, "%s", err.msg);
	cr_assert_eq(resized_begins, 0);
	kb_store_close(st);
	resized_begins = 4;
	err.msg[0] = '\0';
	cr_assert_eq(kb_store_open(&st, dir, 0, NULL, &err), KB_STORE_ERROR);
	cr_assert_null(st);
	cr_assert(strstr(err.msg, ": cannot open: MDB_MAP_RESIZED"), "%s", err.msg);
}

/* A transaction that cannot begin for a reason no retry mends (LMDB's
 * MDB_PANIC here) fails the read at once, with LMDB's message, and leaves
 * the record empty. */
Test(core_rules, store_read_fails_when_no_transaction_begins)
{
	char dir[512];
	kb_store *st = store_with_kim(dir, sizeof dir);
	kb_opp_rec rec;
	kb_err err;

	memset(&rec, 0xab, sizeof rec);
	panicked_begins = 1;
	cr_assert_eq(kb_store_get(st, "kim", &rec, &err), KB_STORE_ERROR);
	cr_assert_eq(panicked_begins, 0, "one attempt, no retry");
	cr_assert(strstr(err.msg, ": cannot read: MDB_PANIC"), "%s", err.msg);
	cr_assert_eq(rec.games, 0);
	cr_assert_eq(kb_store_get(st, "kim", &rec, &err), 0, "%s", err.msg);
	cr_assert_eq(rec.games, 2);
	kb_store_close(st);
}

/* A read of a frozen store whose snapshot writers changed under it (two
 * commits during the read) is tried again, up to 8 reads in all: with 7
 * changed it succeeds on the 8th, with 8 it fails, naming the opponent,
 * and leaves the record empty; the digest alike. */
Test(core_rules, frozen_read_tried_eight_times)
{
	char dir[512];
	kb_store *st = store_with_kim(dir, sizeof dir);
	kb_opp_rec rec;
	kb_err err;
	uint64_t digest, changed;

	kb_store_close(st);
	cr_assert_eq(kb_store_open(&st, dir, KB_STORE_FROZEN, NULL, &err), 0, "%s", err.msg);
	changed_snapshots = 7;
	cr_assert_eq(kb_store_get(st, "kim", &rec, &err), 0, "%s", err.msg);
	cr_assert_eq(rec.games, 2);
	cr_assert_eq(changed_snapshots, 0);
	memset(&rec, 0xab, sizeof rec);
	changed_snapshots = 8;
	cr_assert_eq(kb_store_get(st, "kim", &rec, &err), KB_STORE_ERROR);
	cr_assert_eq(changed_snapshots, 0, "eight reads");
	cr_assert(strstr(err.msg, ": changed while read (frozen), opponent kim"), "%s", err.msg);
	cr_assert_eq(rec.games, 0);
	cr_assert_eq(kb_store_digest(st, &digest, &err), 0, "%s", err.msg);
	changed_snapshots = 7;
	cr_assert_eq(kb_store_digest(st, &changed, &err), 0, "%s", err.msg);
	cr_assert_eq(changed, digest);
	changed_snapshots = 8;
	cr_assert_eq(kb_store_digest(st, &changed, &err), KB_STORE_ERROR);
	cr_assert(strstr(err.msg, ": changed while read (frozen)"), "%s", err.msg);
	changed_snapshots = 0;
	kb_store_close(st);
}

/* A walk whose cursor cannot be opened fails, naming the reason, and ends
 * its read transaction: the next read in this thread (which LMDB refuses
 * while the thread holds a read transaction) works. */
Test(core_rules, store_walk_without_a_cursor_ends_its_read)
{
	char dir[512];
	kb_store *st = store_with_kim(dir, sizeof dir);
	kb_store_visitor vis = {NULL, NULL, NULL};
	kb_opp_rec rec;
	kb_err err;

	failed_cursors = 1;
	cr_assert_eq(kb_store_each(st, &vis, &err), KB_STORE_ERROR);
	cr_assert(strstr(err.msg, ": cannot read: Cannot allocate memory"), "%s", err.msg);
	cr_assert_eq(kb_store_get(st, "kim", &rec, &err), 0, "%s", err.msg);
	cr_assert_eq(rec.games, 2);
	kb_store_close(st);
}

/* A digest whose cursor cannot be opened fails, naming that reason (not
 * a later one of a read without a cursor), and ends its read: the next
 * digest works and gives the store's digest. */
Test(core_rules, store_digest_without_a_cursor_fails)
{
	char dir[512];
	kb_store *st = store_with_kim(dir, sizeof dir);
	kb_err err;
	uint64_t digest, again;

	cr_assert_eq(kb_store_digest(st, &digest, &err), 0, "%s", err.msg);
	failed_cursors = 1;
	err.msg[0] = '\0';
	cr_assert_eq(kb_store_digest(st, &again, &err), KB_STORE_ERROR);
	cr_assert_eq(failed_cursors, 0, "one attempt: no cursor is no changed snapshot");
	cr_assert(strstr(err.msg, ": cannot read: Cannot allocate memory"), "%s", err.msg);
	cr_assert_eq(kb_store_digest(st, &again, &err), 0, "%s", err.msg);
	cr_assert_eq(again, digest);
	kb_store_close(st);
}
