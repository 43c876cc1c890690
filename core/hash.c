/* hash.c - FNV-1a 64; see hash.h. */
#include <stdio.h>

#include "hash.h"

#define FNV_PRIME 0x100000001b3ull

uint64_t kb_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * FNV_PRIME;
	return h;
}

int kb_fnv1a_file(uint64_t *h, const char *path)
{
	FILE *f = fopen(path, "rb");
	char buf[8192];
	size_t got;
	int failed;

	if (!f)
		return -1;
	while ((got = fread(buf, 1, sizeof buf, f)) > 0)
		*h = kb_fnv1a(*h, buf, got);
	failed = ferror(f);
	fclose(f);
	return failed ? -1 : 0;
}
