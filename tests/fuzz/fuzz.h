/* fuzz.h - fuzz entry points.  Each tests/fuzz/fuzz_NAME.c defines
 * int kb_fuzz_NAME(const uint8_t *data, size_t size); make fuzz links it
 * with libfuzzer_main.c (clang, libFuzzer) and the test suite replays
 * tests/fuzz/corpus/fuzz_NAME/ through it (gcc, sanitizers).  An entry
 * returns 0 and aborts on any broken invariant. */
#ifndef KB_FUZZ_H
#define KB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int kb_fuzz_board(const uint8_t *data, size_t size);
int kb_fuzz_msg(const uint8_t *data, size_t size);
int kb_fuzz_line(const uint8_t *data, size_t size);
int kb_fuzz_request(const uint8_t *data, size_t size);
int kb_fuzz_transcript(const uint8_t *data, size_t size);
int kb_fuzz_result(const uint8_t *data, size_t size);
int kb_fuzz_botclient(const uint8_t *data, size_t size);
int kb_fuzz_state(const uint8_t *data, size_t size);
int kb_fuzz_num(const uint8_t *data, size_t size);

#endif
