/* hash.h - FNV-1a 64, the hash of fingerprints: the judge's fingerprint of
 * a bot's learned state and the store's digest of its records.  It tells
 * states apart; it does not resist deliberate collisions.
 */
#ifndef KB_HASH_H
#define KB_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The starting value of a hash. */
#define KB_FNV_OFFSET 0xcbf29ce484222325ull

/* h extended by len bytes of data.  Cannot fail. */
uint64_t kb_fnv1a(uint64_t h, const void *data, size_t len);

/* h extended by the bytes of file path.  Returns 0, or -1 with h as far
 * as the file could be read when it cannot be opened or read. */
int kb_fnv1a_file(uint64_t *h, const char *path);

#endif
