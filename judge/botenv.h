/* botenv.h - the environment a bot process starts with.
 *
 * A bot gets a small environment, not the judge's: an organiser's shell
 * often holds tokens and passwords (API keys, cloud credentials), and any
 * bot could copy them into its own folder.  By default a bot gets
 *
 *   PATH             the judge's (the command was looked up in it)
 *   HOME             the bot's own folder (the one place it may write)
 *   LANG, LANGUAGE, LC_*, TZ    the judge's, when set
 *   KIMBLE_*         the judge's (KIMBLE_STATE, KIMBLE_STATE_MAP_MAX, ...)
 *   KIMBLE_LEARN=0   when learning is frozen (--no-learn, reruns), instead
 *                    of the judge's
 *
 * and the judge's variables named in pass (a comma-separated list, from
 * --pass-env), or all of them when one of its names is "*".  A named HOME
 * replaces the bot's folder.  Nothing is copied: the entries point into
 * environ, and the two the judge writes into e itself.
 */
#ifndef KJ_BOTENV_H
#define KJ_BOTENV_H

#include "bots.h"

#define KJ_ENV_MAX 512 /* entries; the judge's beyond this are left out */

typedef struct kj_env {
	char *vars[KJ_ENV_MAX + 1]; /* NULL-terminated, for execve */
	char home[600];
	char learn[16];
} kj_env;

/* Fill e for bot; learn 0: KIMBLE_LEARN=0.  pass may be NULL. */
void kj_env_build(kj_env *e, const kj_bot *bot, int learn, const char *pass);

/* 1 when pass (as above) names variable name (len bytes), or holds "*". */
int kj_env_named(const char *pass, const char *name, size_t len);

#endif
