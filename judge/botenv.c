/* botenv.c - the environment a bot process starts with; see botenv.h. */
#include <stdio.h>
#include <string.h>

#include "botenv.h"

extern char **environ;

int kj_env_named(const char *pass, const char *name, size_t len)
{
	if (!pass)
		return 0;
	for (const char *p = pass; *p;) {
		size_t n = strcspn(p, ",");
		if ((n == len && !strncmp(p, name, len)) || (n == 1 && *p == '*'))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

/* 1 for the variables every bot gets from the judge (botenv.h). */
static int by_default(const char *name, size_t len)
{
	static const char *const names[] = {"PATH", "LANG", "LANGUAGE", "TZ"};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (len == strlen(names[i]) && !strncmp(name, names[i], len))
			return 1;
	return (len > 3 && !strncmp(name, "LC_", 3)) || (len > 7 && !strncmp(name, "KIMBLE_", 7));
}

void kj_env_build(kj_env *e, const kj_bot *bot, int learn, const char *pass)
{
	int n = 0, own_home = !kj_env_named(pass, "HOME", 4);

	if (own_home) {
		snprintf(e->home, sizeof e->home, "HOME=%s", bot->dir);
		e->vars[n++] = e->home;
	}
	if (!learn) {
		snprintf(e->learn, sizeof e->learn, "KIMBLE_LEARN=0");
		e->vars[n++] = e->learn;
	}
	for (char **v = environ; *v && n < KJ_ENV_MAX; v++) {
		size_t len = strcspn(*v, "=");
		if ((*v)[len] != '=' || (own_home && len == 4 && !strncmp(*v, "HOME", 4)) ||
		    (!learn && len == 12 && !strncmp(*v, "KIMBLE_LEARN", 12)))
			continue;
		if (by_default(*v, len) || kj_env_named(pass, *v, len))
			e->vars[n++] = *v;
	}
	e->vars[n] = NULL;
}
