/* libfuzzer_main.c - libFuzzer's entry, bound to one target by
 * -DKB_FUZZ_ENTRY=kb_fuzz_NAME (see the Makefile's fuzz rule). */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return KB_FUZZ_ENTRY(data, size);
}
