// SPDX-License-Identifier: GPL-2.0
/*
 * perl-embed: the Perl interpreter run from Debian's libperl.so.5.36, as
 * programs that embed Perl do (perlembed(1)); "perl-embed -e CODE" acts
 * as "perl -e CODE".  Debian's /usr/bin/perl has the interpreter linked
 * in, so this is what maps libperl, a large shared library (3.5 MiB of
 * text), for tests/guest/field.sh.
 *
 * Declared here rather than taken from perl.h, so that it builds without
 * libperl-dev for either architecture: these are the exported functions
 * perlembed uses (a threaded perl, as Debian's: perl_alloc() sets the
 * current interpreter).
 */
typedef struct interpreter PerlInterpreter;

extern void Perl_sys_init3(int *argc, char ***argv, char ***env);
extern void Perl_sys_term(void);
extern PerlInterpreter *perl_alloc(void);
extern void perl_construct(PerlInterpreter *perl);
extern int perl_parse(PerlInterpreter *perl, void (*xsinit)(PerlInterpreter *),
		      int argc, char **argv, char **env);
extern int perl_run(PerlInterpreter *perl);
extern int perl_destruct(PerlInterpreter *perl);
extern void perl_free(PerlInterpreter *perl);

int main(int argc, char **argv, char **env)
{
	PerlInterpreter *perl;
	int ret;

	Perl_sys_init3(&argc, &argv, &env);
	perl = perl_alloc();
	if (!perl)
		return 1;
	perl_construct(perl);
	ret = perl_parse(perl, 0, argc, argv, env);
	if (!ret)
		ret = perl_run(perl);
	perl_destruct(perl);
	perl_free(perl);
	Perl_sys_term();
	return ret;
}
