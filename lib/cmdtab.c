/*
 * joulehook: the command table (cmdtab.h says how to read an entry),
 * and jh_cmdtab_check(), its lint.
 *
 * Where the grammar cannot say what a word does, an entry says the
 * closest sound thing and a comment starting with one of these marks
 * names the case, so that the interpreter (effects.c) can special-case
 * it:
 *
 *   SCRIPT:	an operand or value is a program in a small language that
 *		can write files or run commands (sed's e, w and s///e; awk's
 *		system(), print > file and | pipes).  It is listed as i; the
 *		interpreter must check the script.
 *   CWDWRITE:	the program writes files it names itself in its working
 *		directory (tar -x, unzip, wget, curl -O).  No word names
 *		them, so the form is tagged unknown.
 *   REFSPEC:	an operand's shape changes its effect (git push +ref,
 *		:ref), which an operand rule cannot see.
 *   KEYVAL:	a NAME=VALUE operand does more than the rule says (make
 *		CC=..., dd of=FILE).
 *   ATFILE:	a value or operand "@FILE" reads FILE (curl -d @F, gcc
 *		@F); the path of the rule is the word with the @.
 *   OLDSTYLE:	the first operand may be a cluster of option letters
 *		without a dash (tar xzf A, ar rcs A).
 *   DEFAULT:	with no path operand the program reads the working
 *		directory (grep -r, rg, find, du, ls).
 *   PATH:	an operand is a ref or a path, and only a path is
 *		destructive (git checkout FILE).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmdtab.h"

#define GNU	JH_CT_ABBREV
#define GFILT	(JH_CT_FILTER | JH_CT_ABBREV)

/*
 * git: the files whose content makes git run programs (hooks, filters,
 * fsmonitor, pager, aliases, diff and merge drivers).
 */
#define GIT_RUNS	".git/config,.git/config.worktree,.git/hooks/*," \
	".git/info/attributes,.gitattributes,**/.gitattributes,.gitmodules," \
	"**/.git/config,**/.git/config.worktree,**/.git/hooks/*,.git," \
	"**/.git,**/.git/commondir,.husky/*,**/.git/info/attributes," \
	"**/.git/modules/**/config,**/.git/modules/**/config.worktree," \
	"**/.git/modules/**/hooks/*,**/.git/modules/**/info/attributes," \
	"**/.git/modules/**/commondir,**/.git/worktrees/*/config.worktree," \
	"**/.git/worktrees/*/commondir,**/.git/worktrees/*/gitdir," \
	"lefthook.yml,.lefthook.yml,lefthook-local.yml,.lefthook-local.yml," \
	".pre-commit-config.yaml"
/* What every python start runs: a .pth file's import lines, and these. */
#define PY_RUNS	"**/site-packages/*.pth,**/sitecustomize.py," \
	"**/usercustomize.py"
#define GIT(n, o, a, t, s) \
	{ "git " n, o, a, GIT_RUNS, t, JH_CT_RUNS | JH_CT_ABBREV, s }
#define GITS(n, o, a, t, s) \
	{ "git " n, o, a, GIT_RUNS, t, \
	  JH_CT_RUNS | JH_CT_ABBREV | JH_CT_SUB, s }

/* The diff options of git diff, log, show, format-patch, ... */
#define GIT_DIFF " -U,--unified?i -X,--dirstat?i --dirstat-by-file?i" \
	" --stat?i --stat-width=i --stat-name-width=i --stat-graph-width=i" \
	" --stat-count=i --color?i --ws-error-highlight=i --abbrev?i" \
	" --src-prefix=i --dst-prefix=i --line-prefix=i" \
	" --inter-hunk-context=i --output-indicator-new=i" \
	" --output-indicator-old=i --output-indicator-context=i" \
	" -B,--break-rewrites?i -M,--find-renames?i -C,--find-copies?i" \
	" -l=i -I,--ignore-matching-lines=i --diff-algorithm=i --anchored=i" \
	" --word-diff?i --word-diff-regex=i --color-words?i --color-moved?i" \
	" --color-moved-ws=i --relative?i --ignore-submodules?i" \
	" --submodule?i -S=i -G=i -O=r --rotate-to=i --skip-to=i" \
	" --find-object=i --diff-filter=i --output=w "

/*
 * The revision options of git log, show, rev-list, shortlog, ...; -n
 * (--max-count) is left to each entry, as shortlog and format-patch
 * give -n another meaning.
 */
#define GIT_REV " --max-count=i --skip=i --since=i --after=i" \
	" --since-as-filter=i --until=i --before=i --max-age=i --min-age=i" \
	" --author=i --committer=i --grep-reflog=i --grep=i --min-parents=i" \
	" --max-parents=i --branches?i --tags?i --remotes?i --glob=i" \
	" --exclude=i --exclude-hidden=i --pretty?i --format=i --encoding=i" \
	" --expand-tabs?i --notes?i --show-notes?i --date=i --decorate?i" \
	" --decorate-refs=i --decorate-refs-exclude=i --ancestry-path?i" \
	" -L=i --show-linear-break?i --no-walk?i --filter=i --missing=i" \
	" --diff-merges=i "

/* The sequencer's options (cherry-pick, revert). */
#define GIT_SEQ "--cleanup=i -m,--mainline=i -s,--signoff --strategy=u" \
	" -X,--strategy-option=i -S,--gpg-sign?i --abort:destroy -*"

/* git fetch's options, which git pull takes too. */
#define GIT_FETCH " --depth=i --deepen=i --shallow-since=i" \
	" --shallow-exclude=i --negotiation-tip=i --refmap=i" \
	" --recurse-submodules?i -j,--jobs?i --upload-pack=u" \
	" -o,--server-option=i --filter=i -f,--force:destroy" \
	" --recurse-submodules-default=i --submodule-prefix=i -p,--prune "

/* Options every cargo subcommand takes. */
#define CARGO_G " --config=u -Z=u --color=i --manifest-path=f" \
	" --lockfile-path=f "
/* cargo's build options. */
#define CARGO_B " -p,--package=i --exclude=i --bin=i --example=i --test=i" \
	" --bench=i -F,--features=i -j,--jobs=i --profile=i --target=i" \
	" --target-dir=w --message-format=i --timings?i --artifact-dir=w" \
	" --out-dir=w "
/* coverage's report options. */
#define COVERAGE_R " -m,--show-missing --skip-covered --skip-empty" \
	" --fail-under=i --format=i --include=i --omit=i --precision=i" \
	" --sort=i --contexts=i -i,--ignore-errors "
#define COVERAGE_RUNS ".coveragerc,setup.cfg,tox.ini,pyproject.toml"
#define GOLANGCI_RUNS ".golangci.yml,.golangci.yaml,.golangci.toml," \
	".golangci.json"
#define CARGO_RUNS "Cargo.toml,**/Cargo.toml,build.rs,**/build.rs," \
	".cargo/config.toml,.cargo/config,**/.cargo/config.toml," \
	"**/.cargo/config,rust-toolchain.toml,rust-toolchain"
#define CARGO(n, o, a, t, f, s) \
	{ "cargo " n, CARGO_G o, a, CARGO_RUNS, t, \
	  JH_CT_RUNS | JH_CT_ABBREV | (f), s }

/* go's build flags, single-dash and (as cmd/go accepts) double-dash. */
#define GO_B " -o,--o=w -C,--C=c -p=i -asmflags,--asmflags=u" \
	" -debug-trace,--debug-trace=w -debug-actiongraph,--debug-actiongraph=w" \
	" -debug-runtime-trace,--debug-runtime-trace=w" \
	" -buildmode=i -buildvcs=i -compiler=i -gccgoflags,--gccgoflags=u" \
	" -gcflags,--gcflags=u -installsuffix=i -ldflags,--ldflags=u" \
	" -mod=u -modfile,--modfile=f -overlay,--overlay=u -pgo,--pgo=f" \
	" -pkgdir,--pkgdir=w -tags,--tags=i -toolexec,--toolexec=x" \
	" -coverpkg=i -covermode=i -exec,--exec=x -vettool,--vettool=x "
#define GO_RUNS "go.mod,go.work,**/go.mod"
#define GO(n, o, a, t, f, s) \
	{ "go " n, o, a, GO_RUNS, t, \
	  JH_CT_RUNS | JH_CT_DASHLONG | JH_CT_NOCLUSTER | (f), s }

/*
 * npm's configuration options, which npm reads before and after the
 * command: those that point it at code are f, x or u.
 */
#define NPM_G " --prefix,-C=c -w,--workspace=c --userconfig=f" \
	" --globalconfig=f --node-options=u --script-shell=x --shell=x" \
	" --editor=x --browser=x --viewer=x --git=x --init-module=f" \
	" --cache=w --logs-dir=w --registry=n --proxy=n --https-proxy=n" \
	" --cafile=r --loglevel=i --tag=i --otp=i --before=i --omit=i" \
	" --include=i --install-strategy=i --location=i --scope=i" \
	" --access=i --depth=i --auth-type=i --workspaces --ws -* "
#define NPM_RUNS "package.json,**/package.json,.npmrc,**/.npmrc," \
	".pnpmfile.cjs,**/.pnpmfile.cjs,node_modules/.bin/*"
#define NPM(n, o, a, t, f, s) \
	{ "npm " n, o NPM_G, a, NPM_RUNS, t, \
	  JH_CT_RUNS | JH_CT_ABBREV | (f), s }
#define PNPM(n, o, a, t, f, s) \
	{ "pnpm " n, o " -C,--dir=c --filter=i --filter-prod=i" \
	  " --workspace-root --config.node-options=u -*", a, NPM_RUNS, t, \
	  JH_CT_RUNS | (f), s }
#define YARN(n, o, a, t, f, s) \
	{ "yarn " n, o " --cwd=c --modules-folder=w --cache-folder=w" \
	  " --global-folder=w --link-folder=w --use-yarnrc=f" \
	  " --registry=n --network-timeout=i --mutex=i -*", a, \
	  NPM_RUNS ",.yarnrc,.yarnrc.yml,.pnp.cjs,.yarn/**", t, \
	  JH_CT_RUNS | (f), s }
#define BUN(n, o, a, t, f, s) \
	{ "bun " n, o " --cwd=c -c,--config=f -r,--preload=u" \
	  " --env-file=f -*", a, NPM_RUNS ",bunfig.toml", t, \
	  JH_CT_RUNS | (f), s }

/* pip's general options, taken before and after the command. */
#define PIP_G " --log,--log-file,--local-log=w --proxy=n --retries=i" \
	" --timeout=i" \
	" --exists-action=i --trusted-host=n --cert=r --client-cert=r" \
	" --cache-dir=w --use-feature=i --use-deprecated=i --python=x" \
	" --root-user-action=i --keyring-provider=i --isolated -*"
/* pip install's options, which download and wheel share. */
#define PIP_I " -r,--requirement=r -c,--constraint=r -e,--editable=f" \
	" -i,--index-url=n --extra-index-url=n -f,--find-links=u" \
	" --upgrade-strategy=i --platform=i --python-version=i" \
	" --implementation=i --abi=i --no-binary=i --only-binary=i" \
	" --progress-bar=i -C,--config-settings=u --global-option=u" \
	" --build-option=u --install-option=u --src=w --report=w "
#define PIP_RUNS "setup.py,pyproject.toml,setup.cfg,**/setup.py"
#define PIP(n, o, a, t, f, s) \
	{ "pip " n, o PIP_G, a, PIP_RUNS, t, JH_CT_ABBREV | (f), s }
#define PIP3(n, o, a, t, f, s) \
	{ "pip3 " n, o PIP_G, a, PIP_RUNS, t, JH_CT_ABBREV | (f), s }

/* uv's global options; an upgrade brings in new code, as an install. */
#define UV_G " --directory=c --project=c --config-file=f --cache-dir=w" \
	" -p,--python=x --color=i --allow-insecure-host=n --index=n" \
	" --default-index=n -i,--index-url=n --extra-index-url=n" \
	" -f,--find-links=u --group=i --extra=i --package=i" \
	" -C,--config-setting=u --exclude-newer=i --link-mode=i" \
	" --resolution=i --prerelease=i --index-strategy=i" \
	" --keyring-provider=i -U,--upgrade:install" \
	" -P,--upgrade-package=i:install --reinstall-package=i" \
	" --refresh-package=i --no-binary-package=i --no-build-package=i" \
	" --no-build-isolation-package=i --python-platform=i -*"
#define UV_RUNS "pyproject.toml,uv.toml,**/pyproject.toml,setup.py," \
	"setup.cfg,.python-version"
#define UV(n, o, a, t, f, s) \
	{ "uv " n, o UV_G, a, UV_RUNS, t, JH_CT_RUNS | (f), s }

#define POETRY(n, o, a, t, f, s) \
	{ "poetry " n, o " -C,--directory=c -P,--project=c -*", a, \
	  "pyproject.toml,poetry.toml,setup.py", t, JH_CT_RUNS | (f), s }

/* deno's options, which its commands share. */
#define DENO(n, o, a, t, f, s) \
	{ "deno " n, o " -c,--config=f --import-map=r --lock?w --cert=r" \
	  " --location=n --seed=i --v8-flags?u --inspect?i --inspect-brk?i" \
	  " --inspect-wait?i --env-file?f --env?f -r,--reload?i --ext=i" \
	  " --node-modules-dir?i --vendor?i --watch?i --watch-exclude?i" \
	  " --preload=u --import=u -*", a, "deno.json,deno.jsonc," \
	  "package.json", t, JH_CT_RUNS | JH_CT_NET | (f), s }

/* docker run's and create's options. */
#define DOCKER_RUN "-v,--volume=u --mount=u --volumes-from=u" \
	" --use-api-socket:unknown" \
	" --privileged:unknown --cap-add=u --device=u --security-opt=u" \
	" --userns=u --pid=u --ipc=u --network,--net=i --cgroup-parent=u" \
	" -e,--env=i --env-file=r --label-file=r --cidfile=w" \
	" -w,--workdir=i --name=i -p,--publish=i --entrypoint=i" \
	" -u,--user=i --platform=i --pull=i -m,--memory=i --cpus=i" \
	" --gpus=i -h,--hostname=i --add-host=i --dns=i --restart=i" \
	" --tmpfs=i --ulimit=i -l,--label=i --log-driver=i --log-opt=i" \
	" --shm-size=i --stop-signal=i --stop-timeout=i --cgroupns=i" \
	" --uts=i --expose=i --health-cmd=i --detach-keys=i -a,--attach=i" \
	" --runtime=u --isolation=i --memory-swap=i --cpuset-cpus=i" \
	" --device-cgroup-rule=u --sysctl=u --group-add=i --link=i" \
	" --mac-address=i --ip=i --ip6=i --domainname=i --dns-search=i" \
	" --dns-option=i --init --rm -d,--detach -i,--interactive -t,--tty -*"
#define DOCKER_RUNS "Dockerfile,**/Dockerfile,*.Dockerfile,Containerfile," \
	"docker-compose.yml,docker-compose.yaml,compose.yml,compose.yaml," \
	"docker-compose.override.yml,compose.override.yml"
#define DOCKER_G " -H,--host=n -c,--context=i --config=f" \
	" -l,--log-level=i --tlscacert=r --tlscert=r --tlskey=r "
#define DOCKER(n, o, a, t, f, s) \
	{ "docker " n, o, a, DOCKER_RUNS, t, JH_CT_RUNS | (f), s }
#define PODMAN(n, o, a, t, f, s) \
	{ "podman " n, o, a, DOCKER_RUNS, t, JH_CT_RUNS | (f), s }

/* kubectl's global options. */
#define KUBE_G " --kubeconfig=f --context=i -n,--namespace=i --cluster=i" \
	" --user=i -s,--server=n --token=i --as=i --as-group=i --as-uid=i" \
	" --certificate-authority=r --client-certificate=r --client-key=r" \
	" --request-timeout=i -v=i --cache-dir=w --tls-server-name=i" \
	" --username=i --password=i --profile=i --profile-output=w" \
	" --log-file=w --log-dir=w --insecure-skip-tls-verify -*"
#define KUBE(n, o, a, t, s) \
	{ "kubectl " n, o KUBE_G, a, NULL, t, JH_CT_RUNS | JH_CT_NET, s }

/* gh's subcommands; -R,--repo everywhere, -w,--web opens a browser. */
#define GH(n, o, a, t, f, s) \
	{ "gh " n, o " -R,--repo=i -*", a, NULL, t, JH_CT_NET | (f), s }
#define GHS(n, s) \
	{ "gh " n, "-R,--repo=i -h,--help", "s", NULL, NULL, \
	  JH_CT_NET | JH_CT_SUB, s }
#define GH_BODY " -b,--body=i -F,--body-file=r -t,--title=i" \
	" -a,--assignee=i -l,--label=i -m,--milestone=i -p,--project=i" \
	" -T,--template=i -e,--editor:unknown -w,--web:unknown "
#define GH_LIST " -L,--limit=i -S,--search=i -s,--state=i -A,--author=i" \
	" -a,--assignee=i -l,--label=i -B,--base=i -H,--head=i" \
	" -q,--jq=i -t,--template=i --json=i -w,--web:unknown "

/* openssl's options common to its commands. */
#define OSSL " -in=r -out=w -passin=u -passout=u -engine=u -provider=u" \
	" -provider-path=u -propquery=i -config=f -rand=r -writerand=w" \
	" -inform=i -outform=i -keyform=i -*"
#define OSSL_E(n, o, a, t, s) \
	{ "openssl " n, o OSSL, a, NULL, t, \
	  JH_CT_DASHLONG | JH_CT_NOCLUSTER, s }

/* The C compilers (gcc(1), clang(1)): no -*, as the option families
 * -W, -f, -m and -X are too many to list and some run code. */
#define CC_OPTS "-o=w -c -S -E -g -g0 -g1 -g2 -g3 -ggdb -O -O0 -O1 -O2" \
	" -O3 -Os -Og -Oz -Ofast -Wall -Wextra -Werror -Wpedantic" \
	" -pedantic -pedantic-errors -w -Wshadow -Wconversion" \
	" -Wno-unused-parameter -Wno-unused -Wformat?i -Wstrict-prototypes" \
	" -Wmissing-prototypes -Wno-sign-compare -Wsign-compare" \
	" -Wno-deprecated-declarations -Wvla -Wundef -Wcast-align" \
	" -Wpointer-arith -Wwrite-strings -Wold-style-definition" \
	" -std=i -ansi -fPIC -fpic -fPIE -fpie -pie -no-pie -shared" \
	" -static -pthread -fno-common -fstack-protector" \
	" -fstack-protector-strong -fsanitize=i -fno-omit-frame-pointer" \
	" -fno-strict-aliasing -fvisibility=i -ffunction-sections" \
	" -fdata-sections -flto -fno-lto -fopenmp -fcolor-diagnostics" \
	" -fdiagnostics-color?i -fno-exceptions -fno-rtti -fexceptions" \
	" -march=i -mtune=i -m32 -m64 -D=i -U=i -I=r -iquote=r -isystem=r" \
	" -idirafter=r -include=r -imacros=r -L=r -l=i -x=i -M -MM -MD -MMD" \
	" -MP -MF=w -MT=i -MQ=i -MG -dM -dD -dN -dI -dU -v -dumpversion" \
	" -dumpmachine" \
	" -print-search-dirs -print-file-name=i -print-prog-name=i" \
	" -fsyntax-only -save-temps -pipe -nostdlib -nostdinc" \
	" -nostartfiles -nodefaultlibs -rdynamic -s -B=x -wrapper=x" \
	" -specs=f -fplugin=x -Xlinker=u -Xassembler=u" \
	" -Xpreprocessor=u -Xclang=u -fuse-ld=x --ld-path=x --sysroot=r -isysroot=r" \
	" --version --help -fno-builtin -ffreestanding -fsigned-char" \
	" -funsigned-char -fwrapv -ftrapv -fshort-enums -fprofile-arcs" \
	" -ftest-coverage --coverage -fprofile-generate -fprofile-use" \
	" -aux-info=w -dumpdir=w -dumpbase=u -target=i --target=i"
#define CC_E(n, s) \
	{ n, CC_OPTS, "r*", NULL, NULL, JH_CT_DASHLONG | JH_CT_NOCLUSTER, s }

/* Shells: the parser lists an sh -c body in place of the shell. */
#define SH_OPTS "-c:unknown -i:unknown -s:unknown -o=i -O=i --rcfile=f" \
	" --init-file=f --norc --noprofile --posix --login -l --restricted" \
	" -r --noediting --verbose --version --help -a -b -e -f -h -k -m -n" \
	" -p -t -u -v -x -B -C -E -H -P -T -D --dump-strings --debugger" \
	" --pretty-print"
#define SH_E(n, s) \
	{ n, SH_OPTS, "x,A*", NULL, NULL, JH_CT_RUNS | JH_CT_POSIX, s }

/* Checksum programs; -c reads the files the list names. */
#define SUM_E(n, s) \
	{ n, "-c,--check:unknown -*", "r*", NULL, NULL, GFILT, s }

/* The awk family's options; the program is SCRIPT. */
/* A script from a file (-f, -E, -i) is one this gate has not read. */
#define AWK_OPTS "-F,--field-separator=i -v,--assign=i" \
	" -f,--file=u:pattern -E,--exec=u:pattern,end -e,--source=i:pattern" \
	" -i,--include=u -l,--load=u -o,--pretty-print?w -p,--profile?w" \
	" -d,--dump-variables?w -D,--debug?r -L,--lint?i -W=u -*"
#define AWK_E(n, s) \
	{ n, AWK_OPTS, "i,r*", NULL, NULL, GFILT, s }

/* gzip and its kin: FILE becomes FILE.gz (or back) beside it. */
#define ZIP_E(n, o, s) \
	{ n, o, "rwd*", NULL, NULL, GFILT, s }

/* xz's options (xz, unxz). */
#define XZ_OPTS "-S,--suffix=u -T,--threads=i -M,--memlimit=i -F,--format=i" \
	" -C,--check=i --files=u --files0=u --block-size=i --block-list=i" \
	" --memlimit-compress=i --memlimit-decompress=i" \
	" --memlimit-mt-decompress=i --flush-timeout=i --lzma1?i --lzma2?i" \
	" --x86?i --arm?i --arm64?i --armthumb?i --powerpc?i --ia64?i" \
	" --sparc?i --delta?i -*"

#define GREP_OPTS "-e,--regexp=i:pattern -f,--file=r:pattern" \
	" -r,-R,--recursive,--dereference-recursive:recursive" \
	" -A,--after-context=i -B,--before-context=i -C,--context=i" \
	" -m,--max-count=i -d,--directories=u -D,--devices=i --include=i" \
	" --exclude=i --exclude-from=r --exclude-dir=i --color,--colour?i" \
	" --label=i --binary-files=i --group-separator=i -*"

const struct jh_cmddef jh_cmdtab[] = {
	/* test(1) as [: every operand may be a path whose status is read. */
	{ "[", "-*", "r*", NULL, NULL, JH_CT_NOCLUSTER, "test(1), bash(1)" },
	/* DEFAULT: with no path, the working directory. */
	{ "ag", "-G,--file-search-regex=i -g=i --ignore=i --ignore-dir=i"
	  " -p,--path-to-ignore=r -A,--after=i -B,--before=i -C,--context=i"
	  " -m,--max-count=i --depth=i --pager=x -W,--width=i"
	  " --color-line-number=i --color-match=i --color-path=i"
	  " --workers=i -*", "i,r*", NULL, "recursive", 0, "ag(1)" },
	{ "apt", "-o,--option=u -c,--config-file=f -t,--target-release=i"
	  " -a,--host-architecture=i -P,--build-profiles=i -*", "i*", NULL,
	  "install,net", JH_CT_RUNS | JH_CT_NET | JH_CT_INSTALL, "apt(8)" },
	{ "apt-cache", "-o,--option=u -c,--config-file=f -*", "i*", NULL,
	  NULL, 0, "apt-cache(8)" },
	{ "apt-get", "-o,--option=u -c,--config-file=f"
	  " -t,--target-release=i -a,--host-architecture=i"
	  " -P,--build-profiles=i -*", "i*", NULL, "install,net",
	  JH_CT_RUNS | JH_CT_NET | JH_CT_INSTALL, "apt-get(8)" },
	/* OLDSTYLE: the key (rcs, x, t) comes first; x extracts into the
	 * working directory, so the key is unknown. */
	/* ar's getopt takes any unique prefix: --p is --plugin */
	{ "ar", "--plugin=x --target=i --output=w -*", "u,w,r*", NULL, NULL,
	  JH_CT_ABBREV, "ar(1)" },
	{ "autoreconf", "-B,--prepend-include=r -I,--include=r"
	  " -W,--warnings=i -*", "r*", "configure.ac,configure.in,"
	  "Makefile.am,**/Makefile.am,aclocal.m4,acinclude.m4,m4/*", NULL,
	  JH_CT_RUNS | GNU, "autoreconf --help" },
	/* SCRIPT: the program can run commands and write files. */
	AWK_E("awk", "gawk(1), mawk(1)"),
	SUM_E("b2sum", "b2sum(1)"),
	{ "base64", "-w,--wrap=i -*", "r*", NULL, NULL, GFILT,
	  "base64 --help" },
	{ "basename", "-s,--suffix=i -*", "i*", NULL, NULL, GNU | JH_CT_TEXT,
	  "basename --help" },
	/* With no operand and no -c the shell runs its standard input. */
	SH_E("bash", "bash(1)"),
	{ "black", "-l,--line-length=i -t,--target-version=i --config=r"
	  " --include=i --exclude=i --extend-exclude=i --force-exclude=i"
	  " --stdin-filename=i -W,--workers=i --required-version=i"
	  " --python-cell-magics=i -c,--code=i -*", "r*", NULL,
	  "inplace,recursive", 0, "black --help" },
	{ "builtin", "", "P", NULL, NULL, JH_CT_WRAPPER | JH_CT_POSIX,
	  "bash(1)" },
	/* `bun FILE' runs the file: not listed, so unknown. */
	{ "bun", "--cwd=c -c,--config=f -r,--preload=u --env-file=f"
	  " -v,--version -h,--help --revision", "s", NPM_RUNS ",bunfig.toml",
	  NULL, JH_CT_RUNS | JH_CT_SUB, "bun --help" },
	BUN("add", "--registry=n", "r*", "install,net", 0, "bun add --help"),
	BUN("build", "--outdir=w --outfile=w --root=r -e,--external=i"
	    " --target=i --format=i --sourcemap?i --define=i --loader=i"
	    " --entry-naming=i --chunk-naming=i --asset-naming=i"
	    " --public-path=i", "r*", NULL, 0, "bun build --help"),
	BUN("i", "--registry=n", "r*", "install,net", 0, "bun install --help"),
	BUN("install", "--registry=n", "r*", "install,net", 0,
	    "bun install --help"),
	BUN("remove", "", "i*", "install", 0, "bun remove --help"),
	/* A script of package.json or a file: the file is run. */
	BUN("run", "--:rest", "x,A*", NULL, 0, "bun run --help"),
	BUN("test", "-t,--test-name-pattern=i --timeout=i"
	    " --coverage-dir=w --reporter=i --reporter-outfile=w"
	    " --rerun-each=i --bail?i", "A*", NULL, 0, "bun test --help"),
	BUN("update", "--registry=n", "i*", "install,net", 0,
	    "bun update --help"),
	BUN("x", "", "P", "install,net", JH_CT_POSIX, "bun x --help"),
	{ "bunx", "--bun -p,--package=i", "P", NPM_RUNS, "install,net",
	  JH_CT_RUNS | JH_CT_POSIX, "bunx --help" },
	ZIP_E("bunzip2", "-*", "bzip2(1)"),
	{ "bzcat", "-*", "r*", NULL, NULL, JH_CT_FILTER, "bzip2(1)" },
	ZIP_E("bzip2", "-*", "bzip2(1)"),
	/* `cargo +TOOLCHAIN cmd': not a listed subcommand, so unknown. */
	{ "cargo", "-C=c --config=u -Z=u --color=i --explain=i --list"
	  " -V,--version -v,--verbose -q,--quiet --frozen --locked --offline"
	  " -h,--help", "s", CARGO_RUNS, NULL,
	  JH_CT_RUNS | JH_CT_SUB | JH_CT_ABBREV, "cargo --help" },
	CARGO("add", "--path=r --git=n --branch=i --tag=i --rev=i"
	    " --registry=i -F,--features=i --rename=i --target=i"
	    " -p,--package=i --base=i -*", "i*", "install,net", 0,
	    "cargo-add(1)"),
	CARGO("b", CARGO_B "-*", "", "net", 0, "cargo-build(1)"),
	CARGO("bench", CARGO_B "--:rest -*", "i", "net", 0,
	    "cargo-bench(1)"),
	CARGO("build", CARGO_B "-*", "", "net", 0, "cargo-build(1)"),
	CARGO("c", CARGO_B "-*", "", "net", 0, "cargo-check(1)"),
	CARGO("check", CARGO_B "-*", "", "net", 0, "cargo-check(1)"),
	CARGO("clean", "--target-dir=d -p,--package=i --profile=i"
	    " --target=i -*", "", NULL, 0, "cargo-clean(1)"),
	CARGO("clippy", CARGO_B "--:rest -*", "", "net", 0,
	    "cargo clippy --help"),
	CARGO("d", CARGO_B "--open:unknown -*", "", "net", 0,
	    "cargo-doc(1)"),
	CARGO("doc", CARGO_B "--open:unknown -*", "", "net", 0,
	    "cargo-doc(1)"),
	CARGO("fetch", "--target=i -*", "", "net", 0, "cargo-fetch(1)"),
	/* fix and fmt rewrite the crate's sources, which no word names. */
	CARGO("fix", CARGO_B "-*", "", "net", 0, "cargo-fix(1)"),
	CARGO("fmt", "-p,--package=i --message-format=i --:rest -*", "",
	    NULL, 0, "cargo fmt --help"),
	CARGO("generate-lockfile", "-*", "", "net", 0,
	    "cargo-generate-lockfile(1)"),
	CARGO("init", "--vcs=i --edition=i --name=i --registry=i -*", "w",
	    NULL, 0, "cargo-init(1)"),
	CARGO("install", "--version,--vers=i --git=n --branch=i --tag=i"
	    " --rev=i --path=r --root=w --index=n --registry=i --bin=i"
	    " --example=i -j,--jobs=i --target=i --target-dir=w --profile=i"
	    " -F,--features=i --message-format=i -*", "i*", "install,net",
	    JH_CT_INSTALL,
	    "cargo-install(1)"),
	CARGO("locate-project", "--message-format=i -*", "", NULL, 0,
	    "cargo-locate-project(1)"),
	CARGO("metadata", "--format-version=i --filter-platform=i"
	    " -F,--features=i -*", "", "net", 0, "cargo-metadata(1)"),
	CARGO("new", "--vcs=i --edition=i --name=i --registry=i -*", "w",
	    NULL, 0, "cargo-new(1)"),
	/* cargo-nextest, the test runner: a cargo test of its own. */
	CARGO("nextest", "-h,--help -V,--version", "s", NULL, JH_CT_SUB,
	    "cargo nextest --help"),
	CARGO("nextest list", CARGO_B "-*", "i*", "net", 0,
	    "cargo nextest list --help"),
	CARGO("nextest run", CARGO_B "--:rest -*", "i*", "net", 0,
	    "cargo nextest run --help"),
	CARGO("package", CARGO_B "--index=n --registry=i -*", "", "net", 0,
	    "cargo-package(1)"),
	CARGO("pkgid", "-p,--package=i -*", "i", NULL, 0, "cargo-pkgid(1)"),
	CARGO("publish", CARGO_B "--token=i --index=n --registry=i -*", "",
	    "net,remote", 0, "cargo-publish(1)"),
	CARGO("r", CARGO_B "--:rest -*", "A*", "net", 0, "cargo-run(1)"),
	CARGO("remove", "--target=i -p,--package=i -*", "i*", NULL, 0,
	    "cargo-remove(1)"),
	CARGO("rm", "--target=i -p,--package=i -*", "i*", NULL, 0,
	    "cargo-remove(1)"),
	CARGO("run", CARGO_B "--:rest -*", "A*", "net", 0, "cargo-run(1)"),
	CARGO("rustc", CARGO_B "--print=u --crate-type=i --:rest -*", "",
	    "net", 0, "cargo-rustc(1)"),
	CARGO("rustdoc", CARGO_B "--open:unknown --:rest -*", "", "net", 0,
	    "cargo-rustdoc(1)"),
	CARGO("search", "--limit=i --index=n --registry=i -*", "i*", "net",
	    0, "cargo-search(1)"),
	CARGO("t", CARGO_B "--:rest -*", "i", "net", 0, "cargo-test(1)"),
	CARGO("test", CARGO_B "--:rest -*", "i", "net", 0, "cargo-test(1)"),
	CARGO("tree", "-p,--package=i -e,--edges=i -i,--invert=i"
	    " --prefix=i -f,--format=i --depth=i --target=i --charset=i"
	    " -F,--features=i --prune=i --exclude=i -*", "", "net", 0,
	    "cargo-tree(1)"),
	CARGO("uninstall", "--root=w --bin=i -p,--package=i -*", "i*",
	    "install", 0, "cargo-uninstall(1)"),
	/* new locked versions: code the next build runs, as npm update */
	CARGO("update", "-p,--package=i --precise=i -*", "i*", "install,net",
	    0, "cargo-update(1)"),
	CARGO("vendor", "-s,--sync=f -*", "w", "net", 0, "cargo-vendor(1)"),
	CARGO("version", "-*", "", NULL, 0, "cargo-version(1)"),
	{ "cat", "-*", "r*", NULL, NULL, GFILT, "cat --help" },
	CC_E("cc", "gcc(1)"),
	/* -L, -H: a tree's links are followed, out of it too */
	{ "chgrp", "--reference=r --from=i -R,--recursive:recursive"
	  " -L:unknown -H:unknown -*", "w*", NULL, NULL, GNU, "chgrp --help" },
	/* `chmod -x F': the mode may look like an option, so the first
	 * operand (the mode, or a file after --reference) is w too. */
	{ "chmod", "--reference=r -R,--recursive:recursive -*", "w*", NULL,
	  NULL, GNU, "chmod --help" },
	{ "chown", "--reference=r --from=i -R,--recursive:recursive"
	  " -L:unknown -H:unknown -*", "w*", NULL, NULL, GNU, "chown --help" },
	{ "chrt", "-b,--batch -d,--deadline -f,--fifo -i,--idle -o,--other"
	  " -r,--rr -R,--reset-on-fork -v,--verbose -T,--sched-runtime=i"
	  " -P,--sched-period=i -D,--sched-deadline=i -a,--all-tasks"
	  " -m,--max", "i,P", NULL, NULL, JH_CT_WRAPPER | JH_CT_POSIX | GNU,
	  "chrt(1)" },
	CC_E("clang", "clang(1)"),
	CC_E("clang++", "clang(1)"),
	{ "clang-format", "-i:inplace --style,-style=i"
	  " --assume-filename,-assume-filename=i --lines,-lines=i"
	  " --offset,-offset=i --length,-length=i"
	  " --fallback-style,-fallback-style=i --files,-files=u"
	  " --ferror-limit,-ferror-limit=i"
	  " --qualifier-alignment,-qualifier-alignment=i -n,--dry-run"
	  " -dry-run --Werror -Werror --dump-config -dump-config"
	  " --sort-includes -sort-includes --verbose -verbose --version"
	  " -version --help -help --output-replacements-xml"
	  " -output-replacements-xml", "r*", NULL, NULL,
	  JH_CT_FILTER | JH_CT_DASHLONG | JH_CT_NOCLUSTER,
	  "clang-format --help" },
	/* -D sets cache variables (CMAKE_C_COMPILER, ...): unknown, but
	 * for the settings effects.c's inert_define takes.  -E runs a
	 * command mode (cmake -E rm -rf D). */
	{ "cmake", "-S=r -B=w -C=f -D=u -U=i -G=i -T=i -A=i --toolchain=f"
	  " --install-prefix=w --preset=i --build=c --install=c --prefix=w"
	  " --config=i --target=i -t=i -j,--parallel?i --clean-first"
	  " --open=u -E:unknown -P=f --graphviz=w --system-information=w"
	  " --log-level=i --log-context --trace --trace-expand"
	  " --trace-source=i --trace-format=i --trace-redirect=w"
	  " --warn-uninitialized --no-warn-unused-cli --check-system-vars"
	  " --profiling-output=w --profiling-format=i --fresh -Wdev -Wno-dev"
	  " -Werror=i -Wno-error=i --version --help --component=i --strip"
	  " -v,--verbose --list-presets?i --debug-output --debug-find"
	  " --debug-trycompile --compile-no-warning-as-error -L -LA -LH -LAH"
	  " -N --:rest", "r*", "CMakeLists.txt,**/CMakeLists.txt,*.cmake,"
	  "**/*.cmake,CMakePresets.json,CMakeUserPresets.json,"
	  "**/CMakeCache.txt,**/CMakeFiles/**", NULL,
	  JH_CT_RUNS | JH_CT_DASHLONG | JH_CT_NOCLUSTER, "cmake(1)" },
	{ "cmp", "-i,--ignore-initial=i -n,--bytes=i -*", "r*", NULL, NULL,
	  GFILT, "cmp --help" },
	/*
	 * An editor that runs extensions and tasks, and the editors built
	 * on it (Cursor, Windsurf, Cline's host): a workspace's tasks run
	 * when the folder opens (runOn folderOpen), its settings name the
	 * shell the agent's own commands run in, a dev container's file
	 * the commands its container runs.
	 */
	{ "code", "-*", "r*", "**/.vscode/tasks.json,**/.vscode/settings.json,"
	  "**/.vscode/launch.json,**/*.code-workspace,"
	  "**/.devcontainer/**,**/.devcontainer.json", "unknown", JH_CT_RUNS,
	  "code --help, VS Code's tasks.json and devcontainer.json" },
	{ "col", "-b -f -h -l=i -p -x -*", "", NULL, NULL, JH_CT_FILTER,
	  "col(1)" },
	{ "column", "-s,--separator=i -o,--output-separator=i"
	  " -c,--output-width=i -n,--table-name=i -N,--table-columns=i"
	  " -l,--table-columns-limit=i -R,--table-right=i"
	  " -T,--table-truncate=i -E,--table-noextreme=i -W,--table-wrap=i"
	  " -H,--table-hide=i -O,--table-order=i -r,--tree=i -i,--tree-id=i"
	  " -p,--tree-parent=i -*", "r*", NULL, NULL, GFILT,
	  "column --help" },
	{ "comm", "--output-delimiter=i -*", "r,r", NULL, NULL, GFILT,
	  "comm --help" },
	/* command -v and -V only look the name up (lib/shellparse.c). */
	{ "command", "-p -v -V", "P", NULL, NULL,
	  JH_CT_WRAPPER | JH_CT_POSIX, "bash(1)" },
	/*
	 * Its configuration's plugins= are Python modules it imports, so
	 * every subcommand runs them.
	 */
	{ "coverage", "--rcfile=f -h,--help --version", "s", COVERAGE_RUNS,
	  NULL, JH_CT_RUNS | JH_CT_SUB, "coverage help" },
	{ "coverage html", "--rcfile=f --data-file=r -d,--directory=w"
	  " --title=i" COVERAGE_R "-*", "r*", COVERAGE_RUNS, NULL,
	  JH_CT_RUNS, "coverage help html" },
	{ "coverage json", "--rcfile=f --data-file=r -o=w --pretty-print"
	  COVERAGE_R "-*", "r*", COVERAGE_RUNS, NULL, JH_CT_RUNS,
	  "coverage help json" },
	{ "coverage report", "--rcfile=f --data-file=r" COVERAGE_R "-*",
	  "r*", COVERAGE_RUNS, NULL, JH_CT_RUNS, "coverage help report" },
	/* coverage run -m pytest is pytest, run under coverage. */
	{ "coverage run", "--rcfile=f --data-file=w -p,--parallel-mode"
	  " --branch --source=r --omit=i --include=i --concurrency=i"
	  " --context=i -L,--pylib -a,--append --timid -m=P -*", "x,A*",
	  COVERAGE_RUNS, NULL, JH_CT_RUNS | JH_CT_POSIX, "coverage help run" },
	{ "coverage xml", "--rcfile=f --data-file=r -o=w" COVERAGE_R "-*",
	  "r*", COVERAGE_RUNS, NULL, JH_CT_RUNS, "coverage help xml" },
	{ "cp", "-t,--target-directory=w:target -S,--suffix=u --backup?i"
	  " --preserve?i --no-preserve=i --reflink?i --sparse=i --context?i"
	  " -r,-R,--recursive:recursive -a,--archive:recursive"
	  " -l,--link:inplace -s,--symbolic-link:inplace"
	  " -P,--no-dereference:unknown -d:unknown -*", "r*,$w",
	  NULL, NULL, GNU, "cp --help" },
	/* CWDWRITE: -i extracts into the working directory, -o reads the
	 * names on its input. */
	{ "cpio", "-*", "u*", NULL, "unknown", 0, "cpio(1)" },
	/* --addon runs a Python script; --dump writes beside every source. */
	{ "cppcheck", "--output-file=w --addon=u --cppcheck-build-dir=w"
	  " --plist-output=w --dump:unknown -I=r -i=i --enable=i --std=i"
	  " --suppress=i --suppressions-list=r --template=i -j=i -D=i -U=i"
	  " --error-exitcode=i --inline-suppr -q,--quiet -v,--verbose"
	  " -f,--force --check-config --language=i --platform=i --xml"
	  " --library=r --project=r -*", "r*", NULL, "recursive", 0,
	  "cppcheck --help" },
	{ "ctest", "--test-dir=c -C,--build-config=i -R,--tests-regex=i"
	  " -E,--exclude-regex=i -L,--label-regex=i -LE,--label-exclude=i"
	  " -j,--parallel?i -O,--output-log=w --output-junit=w"
	  " -T,--test-action=i -S,--script=f -D,--dashboard=i"
	  " -I,--tests-information=i --timeout=i --repeat=i"
	  " --schedule-random --output-on-failure -V -VV --verbose"
	  " --extra-verbose -N,--show-only?i -Q,--quiet --rerun-failed"
	  " --stop-on-failure --no-tests=i --resource-spec-file=r"
	  " --build-and-test:unknown --progress", "",
	  "CTestTestfile.cmake,**/CTestTestfile.cmake,CMakeLists.txt,"
	  "**/CMakeLists.txt", NULL,
	  JH_CT_RUNS | JH_CT_DASHLONG | JH_CT_NOCLUSTER, "ctest(1)" },
	/*
	 * The network is the hosts of its URLs, any host once it follows
	 * redirects (-L) or is told to connect elsewhere (--resolve,
	 * --connect-to).
	 * ATFILE: -d, --data-binary, -F, --json, -H and --variable read
	 * FILE for @FILE (or <FILE).  -w can write (%output{}, curl 8.3).
	 * CWDWRITE: -O and -J name the file from the URL.
	 */
	{ "curl", "-o,--output=w -O,--remote-name:unknown"
	  " --remote-name-all:unknown -J,--remote-header-name:unknown"
	  " --output-dir=w --create-dirs -d,--data=r --data-ascii=r"
	  " --data-binary=r --data-urlencode=r --data-raw=i -F,--form=r"
	  " --form-string=i --json=r -T,--upload-file=r -K,--config=u"
	  " -b,--cookie=r -c,--cookie-jar=w -D,--dump-header=w --trace=w"
	  " --trace-ascii=w --stderr=w --etag-save=w --etag-compare=r"
	  " --hsts=w --alt-svc=w --libcurl=w -E,--cert=r --key=r --cacert=r"
	  " --capath=r --crlfile=r --pinnedpubkey=r --netrc-file=r"
	  " --unix-socket=u --abstract-unix-socket=u -H,--header=r"
	  " --proxy-header=r -u,--user=i -A,--user-agent=i -e,--referer=i"
	  " -X,--request=i -x,--proxy=n --preproxy=n --socks4=n --socks4a=n"
	  " --socks5=n --socks5-hostname=n -U,--proxy-user=i --noproxy=i"
	  " --url=n -w,--write-out=u --connect-timeout=i -m,--max-time=i"
	  " --retry=i --retry-delay=i --retry-max-time=i -r,--range=i"
	  " -C,--continue-at=i --limit-rate=i --max-filesize=i"
	  " --max-redirs=i --resolve=i:net --connect-to=i:net --interface=i"
	  " --local-port=i --dns-servers=i --doh-url=n --cert-type=i"
	  " --key-type=i --pass=i --ciphers=i --tls-max=i --proto=i"
	  " --proto-redir=i --proto-default=i -z,--time-cond=r"
	  " --oauth2-bearer=i --aws-sigv4=i --request-target=i"
	  " --expect100-timeout=i --keepalive-time=i --parallel-max=i"
	  " -Q,--quote=u -P,--ftp-port=i -t,--telnet-option=i --mail-from=i"
	  " --mail-rcpt=i --mail-auth=i --variable=r --url-query=r"
	  " --engine=u -y,--speed-time=i -Y,--speed-limit=i"
	  " --trace-config=i -s,--silent -S,--show-error -L,--location:net"
	  " --location-trusted:net -f,--fail --fail-with-body --fail-early"
	  " -k,--insecure -I,--head -i,--include -v,--verbose -g,--globoff"
	  " -G,--get -N,--no-buffer --progress-bar --no-progress-meter"
	  " --compressed -4,--ipv4 -6,--ipv6 --http1.0 --http1.1 --http2"
	  " --http2-prior-knowledge --http3 -0 -1 -2 -3 --tlsv1 --tlsv1.0"
	  " --tlsv1.1 --tlsv1.2 --tlsv1.3 --ssl --ssl-reqd --retry-all-errors"
	  " --retry-connrefused --path-as-is --raw --tcp-nodelay"
	  " --no-keepalive --no-sessionid --basic --digest --ntlm --negotiate"
	  " --anyauth --proxy-insecure -p,--proxytunnel -n,--netrc:unknown"
	  " --netrc-optional:unknown -j,--junk-session-cookies -R,--remote-time"
	  " --xattr --crlf -B,--use-ascii -l,--list-only -a,--append"
	  " -Z,--parallel --parallel-immediate -q,--disable -h,--help"
	  " -V,--version -M,--manual --styled-output --no-styled-output"
	  " --suppress-connect-headers --ignore-content-length --cert-status"
	  " --false-start --ssl-no-revoke --no-alpn --no-npn --trace-time"
	  " --sasl-ir --post301 --post302 --post303 --tr-encoding --http0.9"
	  " --no-clobber --remove-on-error --skip-existing",
	  "n*", NULL, NULL, 0, "curl(1)" },
	{ "cut", "-b,--bytes=i -c,--characters=i -d,--delimiter=i"
	  " -f,--fields=i --output-delimiter=i -*", "r*", NULL, NULL, GFILT,
	  "cut --help" },
	SH_E("dash", "dash(1)"),
	{ "date", "-d,--date=i -f,--file=r -I,--iso-8601?i --rfc-3339=i"
	  " -r,--reference=r -s,--set=u -*", "i*", NULL, NULL, GNU,
	  "date --help" },
	/* KEYVAL: if=FILE reads, of=FILE writes; the rule cannot tell. */
	{ "dd", "-*", "u*", NULL, NULL, JH_CT_FILTER | GNU, "dd --help" },
	{ "deno", "-h,--help -V,--version", "s", "deno.json,deno.jsonc,"
	  "package.json", NULL, JH_CT_RUNS | JH_CT_SUB | JH_CT_NET,
	  "deno --help" },
	DENO("add", "", "i*", "install,net", 0, "deno add --help"),
	DENO("bench", "--filter=i --:rest", "f*", NULL, 0, "deno bench --help"),
	DENO("cache", "", "f*", NULL, 0, "deno cache --help"),
	DENO("check", "", "r*", NULL, 0, "deno check --help"),
	DENO("compile", "-o,--output=w --target=i --include=r --icon=r",
	    "x,A*", NULL, 0, "deno compile --help"),
	DENO("eval", "", "u,A*", NULL, 0, "deno eval --help"),
	DENO("fmt", "--ignore=i --indent-width=i --line-width=i"
	    " --prose-wrap=i", "r*", "inplace,recursive", 0,
	    "deno fmt --help"),
	DENO("info", "", "i*", NULL, 0, "deno info --help"),
	DENO("init", "", "w", NULL, 0, "deno init --help"),
	DENO("install", "-n,--name=i --root=w", "r*", "install,net", 0,
	    "deno install --help"),
	DENO("lint", "--ignore=i --rules-tags=i --rules-include=i"
	    " --rules-exclude=i --fix:inplace", "r*", "recursive", 0,
	    "deno lint --help"),
	DENO("repl", "--eval=u --eval-file=f", "A*", "unknown", 0,
	    "deno repl --help"),
	DENO("run", "--:rest", "x,A*", NULL, JH_CT_POSIX, "deno run --help"),
	DENO("serve", "--port=i --host=i", "x,A*", NULL, JH_CT_POSIX,
	    "deno serve --help"),
	DENO("task", "--cwd=c -f,--filter=i --:rest", "i,A*", NULL,
	    JH_CT_POSIX, "deno task --help"),
	DENO("test", "--filter=i --junit-path=w --coverage?w --reporter=i"
	    " --shuffle?i --parallel --:rest", "f*", NULL, 0,
	    "deno test --help"),
	DENO("upgrade", "--version=i --output=w", "i*", "install", 0,
	    "deno upgrade --help"),
	{ "df", "-B,--block-size=i --output?i -t,--type=i"
	  " -x,--exclude-type=i -*", "r*", NULL, NULL, GNU, "df --help" },
	{ "diff", "-C=i --context?i -U=i --unified?i -W,--width=i"
	  " -x,--exclude=i -X,--exclude-from=r -I,--ignore-matching-lines=i"
	  " -F,--show-function-line=i -D,--ifdef=i -S,--starting-file=i"
	  " --label=i --line-format=i --old-line-format=i"
	  " --new-line-format=i --unchanged-line-format=i"
	  " --old-group-format=i --new-group-format=i"
	  " --changed-group-format=i --unchanged-group-format=i"
	  " --tabsize=i --horizon-lines=i --from-file=r --to-file=r"
	  " --color?i --palette=i -r,--recursive:recursive -*", "r*", NULL,
	  NULL, GNU, "diff --help" },
	/* not diff by its version suffix: it runs --diff-program */
	{ "diff3", "--diff-program=x -m,--merge -e,--ed -E,--show-overlap"
	  " -x,--overlap-only -X -3,--easy-only -i -a,--text"
	  " --strip-trailing-cr -T,--initial-tab -A,--show-all"
	  " -L,--label=i --help --version", "r*", NULL, NULL, GNU,
	  "diff3 --help" },
	/* The .envrc of a directory runs in every shell that enters it
	 * once allowed, and in direnv exec. */
	{ "direnv", "-h,--help", "s", ".envrc,**/.envrc", NULL,
	  JH_CT_RUNS | JH_CT_SUB, "direnv(1)" },
	{ "direnv allow", "", "f", ".envrc,**/.envrc", NULL, JH_CT_RUNS,
	  "direnv(1)" },
	{ "direnv deny", "", "r", NULL, NULL, 0, "direnv(1)" },
	{ "direnv edit", "", "w", ".envrc,**/.envrc", "unknown", JH_CT_RUNS,
	  "direnv(1)" },
	{ "direnv exec", "", "c,P", ".envrc,**/.envrc", NULL,
	  JH_CT_RUNS | JH_CT_POSIX, "direnv(1)" },
	{ "direnv export", "", "i", ".envrc,**/.envrc", NULL, JH_CT_RUNS,
	  "direnv(1)" },
	{ "direnv reload", "", "", ".envrc,**/.envrc", NULL, JH_CT_RUNS,
	  "direnv(1)" },
	{ "direnv status", "", "", NULL, NULL, 0, "direnv(1)" },
	{ "direnv version", "", "i", NULL, NULL, 0, "direnv(1)" },
	{ "dirname", "-*", "i*", NULL, NULL, GNU | JH_CT_TEXT,
	  "dirname --help" },
	{ "doas", "-u=i -C=r -n -s:unknown -L", "P", NULL, NULL,
	  JH_CT_POSIX, "doas(1)" },
	{ "docker", DOCKER_G "-D,--debug --tls --tlsverify -v,--version"
	  " -h,--help", "s", DOCKER_RUNS, NULL, JH_CT_RUNS | JH_CT_SUB,
	  "docker --help" },
	DOCKER("build", "-f,--file=f -t,--tag=i --build-arg=i --target=i"
	    " --platform=i --secret=u --ssh=u -o,--output=u --iidfile=w"
	    " --metadata-file=w --cache-from=i --cache-to=u --network=i"
	    " --progress=i --label=i --add-host=i --build-context=u"
	    " --allow=u --builder=i -*", "r", "net,recursive", 0,
	    "docker-build(1)"),
	DOCKER("buildx", "-*", "u*", "net", 0, "docker buildx --help"),
	/*
	 * Compose's subcommands: those that only show what runs are
	 * local; those that start, stop, build or pull are the network's,
	 * as docker run is, and exec and run run their words in a
	 * container (A).
	 */
	DOCKER("compose", "-f,--file=f -p,--project-name=i"
	    " --project-directory=c --env-file=r --profile=i --parallel=i"
	    " --ansi=i --progress=i", "s", NULL, JH_CT_SUB,
	    "docker compose --help"),
	DOCKER("compose build", "-*", "i*", "net", 0,
	    "docker compose build --help"),
	DOCKER("compose config", "--format=i -o,--output=w -q,--quiet"
	    " --services --volumes --images --profiles -*", "i*", NULL, 0,
	    "docker compose config --help"),
	DOCKER("compose create", "-*", "i*", "net", 0,
	    "docker compose create --help"),
	DOCKER("compose down", "-*", "i*", "net", 0,
	    "docker compose down --help"),
	DOCKER("compose exec", "-e,--env=i -u,--user=i -w,--workdir=i"
	    " --index=i --privileged:unknown -*", "i,A*", "net", JH_CT_POSIX,
	    "docker compose exec --help"),
	DOCKER("compose images", "--format=i -q,--quiet -*", "i*", NULL, 0,
	    "docker compose images --help"),
	DOCKER("compose kill", "-*", "i*", "net", 0,
	    "docker compose kill --help"),
	DOCKER("compose logs", "-f,--follow -n,--tail=i --since=i --until=i"
	    " -t,--timestamps --no-color --no-log-prefix -*", "i*", NULL, 0,
	    "docker compose logs --help"),
	DOCKER("compose ls", "-a,--all --filter=i --format=i -q,--quiet -*",
	    "", NULL, 0, "docker compose ls --help"),
	DOCKER("compose pause", "-*", "i*", "net", 0,
	    "docker compose pause --help"),
	DOCKER("compose port", "--index=i --protocol=i -*", "i*", NULL, 0,
	    "docker compose port --help"),
	DOCKER("compose ps", "-a,--all --filter=i --format=i -q,--quiet"
	    " --services --status=i -*", "i*", NULL, 0,
	    "docker compose ps --help"),
	DOCKER("compose pull", "-*", "i*", "net", 0,
	    "docker compose pull --help"),
	DOCKER("compose push", "-*", "i*", "net", 0,
	    "docker compose push --help"),
	DOCKER("compose restart", "-*", "i*", "net", 0,
	    "docker compose restart --help"),
	DOCKER("compose rm", "-*", "i*", "net", 0,
	    "docker compose rm --help"),
	DOCKER("compose run", "-v,--volume=u -e,--env=i --env-from-file=r"
	    " -u,--user=i -w,--workdir=i --entrypoint=u -p,--publish=i"
	    " --name=i -l,--label=i --cap-add=u --cap-drop=i"
	    " --privileged:unknown -*", "i,A*", "net", JH_CT_POSIX,
	    "docker compose run --help"),
	DOCKER("compose start", "-*", "i*", "net", 0,
	    "docker compose start --help"),
	DOCKER("compose stop", "-*", "i*", "net", 0,
	    "docker compose stop --help"),
	DOCKER("compose top", "-*", "i*", NULL, 0,
	    "docker compose top --help"),
	DOCKER("compose unpause", "-*", "i*", "net", 0,
	    "docker compose unpause --help"),
	DOCKER("compose up", "-*", "i*", "net", 0,
	    "docker compose up --help"),
	DOCKER("compose version", "-f,--format=i --short -*", "", NULL, 0,
	    "docker compose version --help"),
	DOCKER("compose watch", "-*", "i*", "net", 0,
	    "docker compose watch --help"),
	/* docker container run/create/exec are docker run/create/exec */
	DOCKER("container", "-*", "u*", NULL, 0, "docker container --help"),
	/* SRC DEST, either of them CONTAINER:PATH. */
	DOCKER("cp", "-a,--archive -L,--follow-link -q,--quiet -*", "rw,rw",
	    NULL, 0, "docker-cp(1)"),
	DOCKER("create", DOCKER_RUN, "i,A*", "net", JH_CT_POSIX,
	    "docker-create(1)"),
	DOCKER("exec", "-e,--env=i --env-file=r -u,--user=i -w,--workdir=i"
	    " --privileged:unknown --detach-keys=i -*", "i,u*", NULL,
	    JH_CT_POSIX, "docker-exec(1)"),
	DOCKER("image", "-*", "u*", NULL, 0, "docker image --help"),
	DOCKER("images", "-f,--filter=i --format=i -*", "i*", NULL, 0,
	    "docker-images(1)"),
	DOCKER("info", "-f,--format=i -*", "", NULL, 0, "docker-info(1)"),
	DOCKER("inspect", "-f,--format=i --type=i -*", "i*", NULL, 0,
	    "docker-inspect(1)"),
	DOCKER("kill", "-s,--signal=i -*", "i*", NULL, 0, "docker-kill(1)"),
	DOCKER("load", "-i,--input=r -*", "", NULL, 0, "docker-load(1)"),
	DOCKER("login", "-u,--username=i -p,--password=i -*", "n", "net", 0,
	    "docker-login(1)"),
	DOCKER("logs", "--since=i --until=i -n,--tail=i -*", "i", NULL, 0,
	    "docker-logs(1)"),
	DOCKER("network", "-*", "i*", NULL, 0, "docker network --help"),
	DOCKER("ps", "-f,--filter=i --format=i -n,--last=i -*", "", NULL, 0,
	    "docker-ps(1)"),
	DOCKER("pull", "--platform=i -*", "i", "net", 0, "docker-pull(1)"),
	DOCKER("push", "-*", "i", "net", 0, "docker-push(1)"),
	DOCKER("restart", "-t,--time=i -s,--signal=i -*", "i*", NULL, 0,
	    "docker-restart(1)"),
	DOCKER("rm", "-*", "u*", NULL, 0, "docker-rm(1)"),
	DOCKER("rmi", "-*", "u*", NULL, 0, "docker-rmi(1)"),
	DOCKER("run", DOCKER_RUN, "i,A*", "net", JH_CT_POSIX,
	    "docker-run(1)"),
	DOCKER("save", "-o,--output=w -*", "i*", NULL, 0, "docker-save(1)"),
	DOCKER("start", "--detach-keys=i -*", "i*", NULL, 0,
	    "docker-start(1)"),
	DOCKER("stats", "--format=i -*", "i*", NULL, 0, "docker-stats(1)"),
	DOCKER("stop", "-t,--time=i -s,--signal=i -*", "i*", NULL, 0,
	    "docker-stop(1)"),
	DOCKER("system", "-*", "u*", NULL, 0, "docker system --help"),
	DOCKER("tag", "-*", "u,u", NULL, 0, "docker-tag(1)"),
	DOCKER("version", "-f,--format=i -*", "", NULL, 0,
	    "docker-version(1)"),
	DOCKER("volume", "-*", "u*", NULL, 0, "docker volume --help"),
	/* DEFAULT: with no operand, the working directory. */
	{ "du", "-B,--block-size=i -d,--max-depth=i --files0-from=r"
	  " -t,--threshold=i --time?i --time-style=i -X,--exclude-from=r"
	  " --exclude=i -*", "r*", NULL, "recursive", GNU, "du --help" },
	{ "echo", "-*", "i*", NULL, NULL, JH_CT_TEXT, "echo(1), bash(1)" },
	{ "egrep", GREP_OPTS, "i,r*", NULL, NULL, GFILT, "grep(1)" },
	/* An editor that can run anything. */
	{ "emacs", "-*", "r*", ".dir-locals.el,**/.dir-locals.el", "unknown",
	  JH_CT_RUNS, "emacs(1)" },
	{ "env", "-u,--unset=i -C,--chdir=c -S,--split-string=u"
	  " -i,--ignore-environment -0,--null -v,--debug --block-signal?i"
	  " --default-signal?i --ignore-signal?i --list-signal-handling"
	  " --help --version", "P", NULL, NULL,
	  JH_CT_WRAPPER | JH_CT_POSIX | GNU, "env --help" },
	/* -f and --parser name modules it loads; --init installs. */
	{ "eslint", "-c,--config=f --ext=i --parser=u --parser-options=i"
	  " --resolve-plugins-relative-to=r --rulesdir=f --plugin=u --rule=i"
	  " --env=i --global=i --ignore-path=r --ignore-pattern=i"
	  " --stdin-filename=i -f,--format=f -o,--output-file=w"
	  " --max-warnings=i --cache-location=w --cache-strategy=i"
	  " --report-unused-disable-directives-severity=i --fix:inplace"
	  " --fix-type=i --flag=i --inspect-config:unknown --init:install,net"
	  " --print-config=r --concurrency=i -*", "r*",
	  "eslint.config.js,eslint.config.mjs,eslint.config.cjs,"
	  "eslint.config.ts,eslint.config.mts,eslint.config.cts,.eslintrc,"
	  ".eslintrc.js,.eslintrc.cjs,.eslintrc.json,.eslintrc.yml,"
	  ".eslintrc.yaml,**/.eslintrc.js,**/.eslintrc.cjs," NPM_RUNS,
	  "recursive", JH_CT_RUNS, "eslint --help" },
	{ "exec", "-c -l -a=i", "P", NULL, NULL, JH_CT_WRAPPER | JH_CT_POSIX,
	  "bash(1)" },
	{ "expr", "-*", "i*", NULL, NULL, JH_CT_NOCLUSTER, "expr --help" },
	{ "false", "-*", "i*", NULL, NULL, 0, "false(1)" },
	{ "fgrep", GREP_OPTS, "i,r*", NULL, NULL, GFILT, "grep(1)" },
	{ "file", "-m,--magic-file=r -f,--files-from=u -F,--separator=i"
	  " -P,--parameter=i -e,--exclude=i --exclude-quiet=i"
	  " -C,--compile:unknown -*", "r*", NULL, NULL, GNU, "file(1)" },
	/*
	 * lib/shellparse.c lists the command of -exec, -execdir, -ok and
	 * -okdir on its own: the interpreter skips the words from the
	 * action to its ; or +.  DEFAULT: with no path, the working
	 * directory.
	 */
	{ "find", "-name=i -iname=i -path=i -ipath=i -wholename=i"
	  " -iwholename=i -regex=i -iregex=i -lname=i -ilname=i -type=i"
	  " -xtype=i -size=i -perm=i -user=i -group=i -uid=i -gid=i -newer=r"
	  " -anewer=r -cnewer=r -samefile=r -mtime=i -atime=i -ctime=i"
	  " -mmin=i -amin=i -cmin=i -used=i -inum=i -links=i -maxdepth=i"
	  " -mindepth=i -fstype=i -context=i -regextype=i -printf=i"
	  " -fprintf=w -fprint=w -fprint0=w -fls=w -files0-from=u"
	  " -delete:delete,recursive -exec -execdir -ok -okdir -D=i -O?i"
	  " -neweraa=r -neweraB=r -newerac=r -neweram=r -newerat=i"
	  " -newerBa=r -newerBB=r -newerBc=r -newerBm=r -newerBt=i"
	  " -newerca=r -newercB=r -newercc=r -newercm=r -newerct=i"
	  " -newerma=r -newermB=r -newermc=r -newermm=r -newermt=i -*",
	  "r*", NULL, "recursive",
	  JH_CT_FINDEXPR | JH_CT_DASHLONG | JH_CT_NOCLUSTER, "find(1)" },
	/*
	 * The plugins its configuration names (local-plugins) are
	 * imported from the project; argparse takes a long option's unique
	 * prefix.
	 */
	{ "flake8", "--output-file=w --tee --config=f --append-config=f"
	  " --isolated --select=i --ignore=i --extend-select=i"
	  " --extend-ignore=i --exclude=i --extend-exclude=i --filename=i"
	  " --per-file-ignores=i --max-line-length=i --max-doc-length=i"
	  " --max-complexity=i --indent-size=i --count --statistics"
	  " --show-source --no-show-source --format=i --color=i --exit-zero"
	  " -j,--jobs=i --benchmark --disable-noqa --enable-extensions=i"
	  " --require-plugins=i --hang-closing -q,--quiet -v,--verbose"
	  " --version:exit -h,--help:exit", "r*", ".flake8,setup.cfg,tox.ini",
	  "recursive", JH_CT_RUNS | GNU, "flake8 --help" },
	{ "fmt", "-w,--width=i -p,--prefix=i -g,--goal=i -*", "r*", NULL,
	  NULL, GFILT, "fmt --help" },
	{ "fold", "-w,--width=i -*", "r*", NULL, NULL, GFILT, "fold --help" },
	CC_E("g++", "gcc(1)"),
	AWK_E("gawk", "gawk(1)"),
	CC_E("gcc", "gcc(1)"),
	{ "gh", "-R,--repo=i --help --version", "s", NULL, NULL,
	  JH_CT_NET | JH_CT_SUB, "gh(1)" },
	GHS("alias", "gh-alias(1)"),
	GH("alias delete", "--all", "i", NULL, 0, "gh-alias-delete(1)"),
	GH("alias list", "", "", NULL, 0, "gh-alias-list(1)"),
	/* An expansion starting with ! is a shell command. */
	GH("alias set", "--shell --clobber", "i,u", NULL, 0,
	    "gh-alias-set(1)"),
	GH("api", "-X,--method=i -f,--raw-field=i -F,--field=u -H,--header=i"
	    " --input=r -q,--jq=i -t,--template=i --hostname=i --cache=i"
	    " -p,--preview=i", "n", NULL, 0, "gh-api(1)"),
	GHS("auth", "gh-auth(1)"),
	GH("auth login", "-h,--hostname=i -p,--git-protocol=i -s,--scopes=i"
	    " -w,--web:unknown", "", NULL, 0, "gh-auth-login(1)"),
	GH("auth logout", "-h,--hostname=i -u,--user=i", "", NULL, 0,
	    "gh-auth-logout(1)"),
	/* setup-git makes gh git's credential helper (git config). */
	GH("auth setup-git", "-h,--hostname=i", "", "unknown", 0,
	    "gh-auth-setup-git(1)"),
	GH("auth status", "-h,--hostname=i", "", NULL, 0,
	    "gh-auth-status(1)"),
	GH("auth token", "-h,--hostname=i -u,--user=i", "", NULL, 0,
	    "gh-auth-token(1)"),
	GH("browse", "-b,--branch=i", "i*", "unknown", 0, "gh-browse(1)"),
	GH("codespace", "", "u*", "unknown", 0, "gh-codespace(1)"),
	GHS("config", "gh-config(1)"),
	GH("config get", "-h,--host=i", "i", NULL, 0, "gh-config-get(1)"),
	GH("config list", "-h,--host=i", "", NULL, 0, "gh-config-list(1)"),
	/* editor, pager and browser name programs gh runs. */
	GH("config set", "-h,--host=i", "i,u", NULL, 0, "gh-config-set(1)"),
	GHS("extension", "gh-extension(1)"),
	GH("extension exec", "", "u*", "unknown", 0, "gh-extension(1)"),
	GH("extension install", "--pin=i", "i", "install,net", 0,
	    "gh-extension(1)"),
	GH("extension list", "", "", NULL, 0, "gh-extension(1)"),
	GH("extension remove", "", "i", NULL, 0, "gh-extension(1)"),
	GH("extension upgrade", "", "i*", "install,net", 0,
	    "gh-extension(1)"),
	GHS("gist", "gh-gist(1)"),
	GH("gist clone", "", "i,w", NULL, 0, "gh-gist-clone(1)"),
	/* The files are uploaded. */
	GH("gist create", "-d,--desc=i -f,--filename=i", "r*", NULL, 0,
	    "gh-gist-create(1)"),
	GH("gist delete", "", "i", NULL, 0, "gh-gist-delete(1)"),
	GH("gist edit", "-a,--add=r -f,--filename=i", "i,r", "unknown", 0,
	    "gh-gist-edit(1)"),
	GH("gist list", "-L,--limit=i", "", NULL, 0, "gh-gist-list(1)"),
	GH("gist view", "-f,--filename=i", "i", NULL, 0, "gh-gist-view(1)"),
	GHS("issue", "gh-issue(1)"),
	GH("issue close", "-c,--comment=i -r,--reason=i", "i", NULL, 0,
	    "gh-issue-close(1)"),
	GH("issue comment", GH_BODY "--edit-last", "i", NULL, 0,
	    "gh-issue-comment(1)"),
	GH("issue create", GH_BODY "--recover=r", "", NULL, 0,
	    "gh-issue-create(1)"),
	GH("issue delete", "", "i", NULL, 0, "gh-issue-delete(1)"),
	GH("issue edit", GH_BODY "--add-assignee=i --remove-assignee=i"
	    " --add-label=i --remove-label=i --add-project=i"
	    " --remove-project=i", "i*", NULL, 0, "gh-issue-edit(1)"),
	GH("issue list", GH_LIST "--mention=i --app=i", "", NULL, 0,
	    "gh-issue-list(1)"),
	GH("issue reopen", "-c,--comment=i", "i", NULL, 0,
	    "gh-issue-reopen(1)"),
	GH("issue status", "-q,--jq=i -t,--template=i --json=i", "", NULL, 0,
	    "gh-issue-status(1)"),
	GH("issue view", "-q,--jq=i -t,--template=i --json=i"
	    " -w,--web:unknown", "i", NULL, 0, "gh-issue-view(1)"),
	GHS("pr", "gh-pr(1)"),
	GH("pr checkout", "-b,--branch=i -f,--force:destroy", "i", NULL, 0,
	    "gh-pr-checkout(1)"),
	GH("pr checks", "-i,--interval=i -q,--jq=i -t,--template=i"
	    " --json=i -w,--web:unknown", "i", NULL, 0, "gh-pr-checks(1)"),
	/* -d deletes the branch, on the remote too. */
	GH("pr close", "-c,--comment=i -d,--delete-branch:force", "i", NULL,
	    0, "gh-pr-close(1)"),
	GH("pr comment", GH_BODY "--edit-last", "i", NULL, 0,
	    "gh-pr-comment(1)"),
	/* It may push the current branch. */
	GH("pr create", GH_BODY "-B,--base=i -H,--head=i -r,--reviewer=i"
	    " --recover=r", "", "remote", 0, "gh-pr-create(1)"),
	GH("pr diff", "--color=i", "i", NULL, 0, "gh-pr-diff(1)"),
	GH("pr edit", GH_BODY "-B,--base=i --add-assignee=i"
	    " --remove-assignee=i --add-label=i --remove-label=i"
	    " --add-reviewer=i --remove-reviewer=i --add-project=i"
	    " --remove-project=i", "i", NULL, 0, "gh-pr-edit(1)"),
	GH("pr list", GH_LIST "--app=i", "", NULL, 0, "gh-pr-list(1)"),
	GH("pr merge", "-b,--body=i -F,--body-file=r -t,--subject=i"
	    " --match-head-commit=i -A,--author-email=i"
	    " -d,--delete-branch:force --admin:force", "i", "remote", 0,
	    "gh-pr-merge(1)"),
	GH("pr ready", "", "i", NULL, 0, "gh-pr-ready(1)"),
	GH("pr reopen", "-c,--comment=i", "i", NULL, 0, "gh-pr-reopen(1)"),
	GH("pr review", "-b,--body=i -F,--body-file=r", "i", NULL, 0,
	    "gh-pr-review(1)"),
	GH("pr status", "-q,--jq=i -t,--template=i --json=i", "", NULL, 0,
	    "gh-pr-status(1)"),
	/* --rebase rewrites the pull request's branch on the remote. */
	GH("pr update-branch", "--rebase:force", "i", "remote", 0,
	    "gh-pr-update-branch(1)"),
	GH("pr view", "-q,--jq=i -t,--template=i --json=i"
	    " -w,--web:unknown", "i", NULL, 0, "gh-pr-view(1)"),
	GHS("release", "gh-release(1)"),
	GH("release create", "-F,--notes-file=r -n,--notes=i -t,--title=i"
	    " --target=i --notes-start-tag=i --discussion-category=i",
	    "i,r*", "remote", 0, "gh-release-create(1)"),
	GH("release delete", "--cleanup-tag:force", "i", NULL, 0,
	    "gh-release-delete(1)"),
	/* CWDWRITE: without -D or -O, into the working directory. */
	GH("release download", "-D,--dir=w -O,--output=w -p,--pattern=i"
	    " -A,--archive=i", "i", "unknown", 0, "gh-release-download(1)"),
	GH("release list", "-L,--limit=i -q,--jq=i -t,--template=i"
	    " --json=i", "", NULL, 0, "gh-release-list(1)"),
	GH("release upload", "", "i,r*", NULL, 0, "gh-release-upload(1)"),
	GH("release view", "-q,--jq=i -t,--template=i --json=i"
	    " -w,--web:unknown", "i", NULL, 0, "gh-release-view(1)"),
	GHS("repo", "gh-repo(1)"),
	GH("repo archive", "", "i", "remote", 0, "gh-repo-archive(1)"),
	/* The words after -- are git clone's options: unknown. */
	GH("repo clone", "-u,--upstream-remote-name=i --:unknown", "i,w",
	    NULL, 0, "gh-repo-clone(1)"),
	GH("repo create", "-d,--description=i -h,--homepage=i --license=i"
	    " -g,--gitignore=i -p,--template=i -s,--source=r --remote=i"
	    " -t,--team=i", "i", "remote", 0, "gh-repo-create(1)"),
	GH("repo delete", "", "i", "force", 0, "gh-repo-delete(1)"),
	GH("repo edit", "", "i", "remote", 0, "gh-repo-edit(1)"),
	GH("repo fork", "--remote-name=i --fork-name=i --org=i --:unknown",
	    "i", "remote", 0, "gh-repo-fork(1)"),
	GH("repo list", "-L,--limit=i -l,--language=i --topic=i"
	    " --visibility=i -q,--jq=i -t,--template=i --json=i", "i", NULL,
	    0, "gh-repo-list(1)"),
	GH("repo rename", "", "i", "remote", 0, "gh-repo-rename(1)"),
	GH("repo sync", "-b,--branch=i -s,--source=i --force:force", "i",
	    "remote", 0, "gh-repo-sync(1)"),
	GH("repo view", "-b,--branch=i -q,--jq=i -t,--template=i --json=i"
	    " -w,--web:unknown", "i", NULL, 0, "gh-repo-view(1)"),
	GHS("run", "gh-run(1)"),
	GH("run cancel", "", "i", NULL, 0, "gh-run-cancel(1)"),
	GH("run delete", "", "i", NULL, 0, "gh-run-delete(1)"),
	/* CWDWRITE: without -D, into the working directory. */
	GH("run download", "-D,--dir=w -n,--name=i -p,--pattern=i", "i",
	    "unknown", 0, "gh-run-download(1)"),
	GH("run list", "-L,--limit=i -b,--branch=i -w,--workflow=i"
	    " -s,--status=i -u,--user=i -e,--event=i -c,--commit=i"
	    " --created=i -q,--jq=i -t,--template=i --json=i", "", NULL, 0,
	    "gh-run-list(1)"),
	GH("run rerun", "-j,--job=i", "i", NULL, 0, "gh-run-rerun(1)"),
	GH("run view", "-j,--job=i --attempt=i -q,--jq=i -t,--template=i"
	    " --json=i -w,--web:unknown", "i", NULL, 0, "gh-run-view(1)"),
	GH("run watch", "-i,--interval=i", "i", NULL, 0, "gh-run-watch(1)"),
	GH("search", "-L,--limit=i -q,--jq=i -t,--template=i --json=i"
	    " -w,--web:unknown", "i*", NULL, 0, "gh-search(1)"),
	GH("secret", "-b,--body=i -f,--env-file=r -e,--env=i -o,--org=i",
	    "i*", NULL, 0, "gh-secret(1)"),
	GH("status", "-o,--org=i -e,--exclude=i", "", NULL, 0,
	    "gh-status(1)"),
	GH("variable", "-b,--body=i -f,--env-file=r -e,--env=i -o,--org=i",
	    "i*", NULL, 0, "gh-variable(1)"),
	GHS("workflow", "gh-workflow(1)"),
	GH("workflow disable", "", "i", NULL, 0, "gh-workflow-disable(1)"),
	GH("workflow enable", "", "i", NULL, 0, "gh-workflow-enable(1)"),
	GH("workflow list", "-L,--limit=i -q,--jq=i -t,--template=i"
	    " --json=i", "", NULL, 0, "gh-workflow-list(1)"),
	/* Runs the workflow's code on the CI, at a ref of our choosing. */
	GH("workflow run", "-f,--raw-field=i -F,--field=u -r,--ref=i", "i",
	    NULL, 0, "gh-workflow-run(1)"),
	GH("workflow view", "-r,--ref=i -y,--yaml -w,--web:unknown", "i",
	    NULL, 0, "gh-workflow-view(1)"),
	/*
	 * git's own options come before the command; they are matched
	 * whole (git.c, not parse-options).  -c, --config-env,
	 * --git-dir and --work-tree make git read configuration that
	 * runs programs (core.pager, core.fsmonitor, alias.*).
	 */
	{ "git", "-C=c -c=u --git-dir=u --work-tree=u --exec-path?x"
	  " --config-env=u --namespace=i --super-prefix=u --list-cmds?i"
	  " --attr-source=i --html-path --man-path --info-path -p,--paginate"
	  " -P,--no-pager --no-replace-objects --no-lazy-fetch"
	  " --no-optional-locks --bare --literal-pathspecs --glob-pathspecs"
	  " --noglob-pathspecs --icase-pathspecs --no-advice -v,--version"
	  " -h,--help", "s", GIT_RUNS, NULL, JH_CT_RUNS | JH_CT_SUB, "git(1)" },
	GIT("add", "--chmod=i --pathspec-from-file=r -*", "r*", NULL,
	    "git-add(1)"),
	GIT("am", "--quoted-cr=i --whitespace=i --directory=i --exclude=i"
	    " --include=i -C=i -p=i --patch-format=i --show-current-patch?i"
	    " -S,--gpg-sign?i --empty=i --resolvemsg=i --abort:destroy -*",
	    "u*", NULL, "git-am(1)"),
	GIT("annotate", "--ignore-rev=i --ignore-revs-file=r -S=r"
	    " --contents=r -C?i -M?i -L=i --abbrev?i --date=i --encoding=i -*",
	    "r*", NULL, "git-annotate(1)"),
	/*
	 * It writes the work-tree files the patch names, inside the work
	 * tree unless --unsafe-paths: files only the patch names, which may
	 * be ones a granted command runs (package.json, a Makefile), so the
	 * patch is unknown, as am's mailbox is.
	 */
	GIT("apply", "--exclude=i --include=i -p=i -C=i --whitespace=i"
	    " --directory=i --build-fake-ancestor=w --unsafe-paths:unknown -*",
	    "u*", NULL, "git-apply(1)"),
	GIT("archive", "--format=i --prefix=i -o,--output=w --add-file=r"
	    " --add-virtual-file=i --remote=n:net --exec=u -*", "i*", NULL,
	    "git-archive(1)"),
	GITS("bisect", "", "s", NULL, "git-bisect(1)"),
	GIT("bisect bad", "-*", "i*", NULL, "git-bisect(1)"),
	GIT("bisect good", "-*", "i*", NULL, "git-bisect(1)"),
	GIT("bisect log", "", "", NULL, "git-bisect(1)"),
	GIT("bisect new", "-*", "i*", NULL, "git-bisect(1)"),
	GIT("bisect old", "-*", "i*", NULL, "git-bisect(1)"),
	GIT("bisect replay", "", "r", NULL, "git-bisect(1)"),
	GIT("bisect reset", "", "i", NULL, "git-bisect(1)"),
	GIT("bisect run", "", "P", NULL, "git-bisect(1)"),
	GIT("bisect skip", "-*", "i*", NULL, "git-bisect(1)"),
	GIT("bisect start", "--term-new,--term-bad=i"
	    " --term-old,--term-good=i -*", "i*", NULL, "git-bisect(1)"),
	GIT("bisect terms", "-*", "", NULL, "git-bisect(1)"),
	GIT("bisect view", "-*", "i*", NULL, "git-bisect(1)"),
	GIT("bisect visualize", "-*", "i*", NULL, "git-bisect(1)"),
	GIT("blame", "--ignore-rev=i --ignore-revs-file=r -S=r --contents=r"
	    " -C?i -M?i -L=i --abbrev?i --date=i --encoding=i -*", "r*", NULL,
	    "git-blame(1)"),
	/* -d deletes only merged branches; -D, -d -f, -M and -C do not
	 * ask. */
	GIT("branch", "-d,--delete -D:destroy -f,--force:destroy -m,--move"
	    " -M:destroy -c,--copy -C:destroy -u,--set-upstream-to=i"
	    " -t,--track?i --contains=i --no-contains=i --merged=i"
	    " --no-merged=i --sort=i --points-at=i --format=i --color?i"
	    " --column?i --abbrev?i -*", "i*", NULL, "git-branch(1)"),
	/* create FILE writes it; verify, list-heads and unbundle read. */
	GIT("bundle", "-*", "i,w,i*", NULL, "git-bundle(1)"),
	GIT("cat-file", "--path=i --batch?i --batch-check?i"
	    " --batch-command?i -*", "i*", NULL, "git-cat-file(1)"),
	GIT("check-attr", "--source=i -*", "i*", NULL, "git-check-attr(1)"),
	GIT("check-ignore", "-*", "r*", NULL, "git-check-ignore(1)"),
	/*
	 * PATH: `git checkout FILE' and `git checkout .' discard the
	 * file's changes, `git checkout BRANCH' does not, and only the
	 * file system can tell them apart; the operands are written.
	 * Every form that names paths after -- discards.
	 */
	GIT("checkout", "-b=i -B=i:destroy --orphan=i -t,--track?i"
	    " -f,--force:destroy -m,--merge:destroy --ours:destroy"
	    " --theirs:destroy --conflict=i -p,--patch:destroy"
	    " --no-overlay:destroy --pathspec-from-file=r:destroy"
	    " --recurse-submodules?i --:end,destroy -*", "w*", NULL,
	    "git-checkout(1)"),
	GIT("cherry", "--abbrev?i -*", "i*", NULL, "git-cherry(1)"),
	GIT("cherry-pick", GIT_SEQ, "i*", NULL, "git-cherry-pick(1)"),
	/* -n is a dry run, but any clean may remove untracked work
	 * (clean.requireForce=false): destroy.  DEFAULT: the working
	 * directory. */
	/* --no-dry-run undoes -n: never taken for a dry run */
	GIT("clean", "-e,--exclude=i -d:recursive -n,--dry-run:keep"
	    " --no-dry-run:unknown -*", "d*", "destroy", "git-clean(1)"),
	/* A repository that is a path is read; the directory, by default
	 * one named after the repository in the working directory, is
	 * created. */
	GIT("clone", "-o,--origin=i -b,--branch=i -u,--upload-pack=u"
	    " --template=u -c,--config=u --depth=i --shallow-since=i"
	    " --shallow-exclude=i --recurse-submodules?i --recursive?i"
	    " -j,--jobs=i --separate-git-dir=u --reference=r"
	    " --reference-if-able=r --server-option=i --filter=i"
	    " --bundle-uri=n --ref-format=i -*", "rn,w", "net",
	    "git-clone(1)"),
	GIT("commit", "-m,--message=i -F,--file=r -C,--reuse-message=i"
	    " -c,--reedit-message=i --amend:rewrite --fixup=i --squash=i"
	    " --author=i --date=i --trailer=i -t,--template=r --cleanup=i"
	    " -S,--gpg-sign?i -u,--untracked-files?i --pathspec-from-file=r"
	    " -*", "r*", NULL, "git-commit(1)"),
	/*
	 * Plumbing that builds a commit or stages a blob from objects of
	 * any content: a checkout, merge or stash then writes it where a
	 * direct write would be asked (package.json, a hook).
	 */
	GIT("commit-tree", "-p=i -m=i -F=r -S,--gpg-sign?i -*", "u", NULL,
	    "git-commit-tree(1)"),
	/*
	 * One operand reads a key; a value (a second operand) or the
	 * options that change keys set configuration that can run
	 * programs (core.pager, alias.*, core.hooksPath): unknown.
	 */
	GIT("config", "-f,--file=w --blob=i --replace-all:unknown"
	    " --add:unknown --unset:unknown --unset-all:unknown"
	    " --rename-section:unknown --remove-section:unknown"
	    " -e,--edit:unknown -t,--type=i --default=i --comment=i -*",
	    "i,u*", NULL, "git-config(1)"),
	GIT("count-objects", "-*", "", NULL, "git-count-objects(1)"),
	GIT("describe", "--abbrev?i --candidates=i --match=i --exclude=i"
	    " --dirty?i --broken?i -*", "i*", NULL, "git-describe(1)"),
	/* With --no-index the operands are any two files: read. */
	GIT("diff", GIT_DIFF "-*", "r*", NULL, "git-diff(1)"),
	GIT("diff-files", GIT_DIFF "-*", "r*", NULL, "git-diff-files(1)"),
	GIT("diff-index", GIT_DIFF "-*", "r*", NULL, "git-diff-index(1)"),
	GIT("diff-tree", GIT_DIFF "--pretty?i --format=i -*", "r*", NULL,
	    "git-diff-tree(1)"),
	GIT("difftool", "-t,--tool=x -x,--extcmd=x" GIT_DIFF "-*", "r*",
	    NULL, "git-difftool(1)"),
	/* REFSPEC: +SRC:DST and DST a local branch overwrite it. */
	GIT("fetch", GIT_FETCH "-P,--prune-tags:destroy"
	    " -u,--update-head-ok:destroy -*", "rn,i*", "net",
	    "git-fetch(1)"),
	GIT("filter-branch", "--env-filter=u --tree-filter=u"
	    " --index-filter=u --parent-filter=u --msg-filter=u"
	    " --commit-filter=u --tag-name-filter=u --subdirectory-filter=i"
	    " --original=i -d=w --state-branch=i -f,--force:destroy --setup=u"
	    " -*", "i*", "rewrite", "git-filter-branch(1)"),
	GIT("filter-repo", "--path=i --path-glob=i --path-regex=i"
	    " --path-rename=i --paths-from-file=r --replace-text=r"
	    " --replace-message=r --subdirectory-filter=i"
	    " --to-subdirectory-filter=i --force:destroy --source=r"
	    " --target=w --refs=i --filename-callback=u --message-callback=u"
	    " --name-callback=u --email-callback=u --refname-callback=u"
	    " --blob-callback=u --commit-callback=u --tag-callback=u"
	    " --reset-callback=u --file-info-callback=u --mailmap=r"
	    " --strip-blobs-bigger-than=i --strip-blobs-with-ids=r"
	    " --tag-rename=i --replace-refs=i --prune-empty=i"
	    " --prune-degenerate=i --state-branch=i -*", "", "rewrite",
	    "git filter-repo --help"),
	GIT("for-each-ref", "--count=i --format=i --color?i --sort=i"
	    " --points-at=i --merged=i --no-merged=i --contains=i"
	    " --no-contains=i --exclude=i -*", "i*", NULL,
	    "git-for-each-ref(1)"),
	GIT("format-patch", "-n,--numbered -o,--output-directory=w"
	    " --suffix=i --start-number=i -v,--reroll-count=i"
	    " --filename-max-length=i --cover-from-description=i"
	    " --subject-prefix=i --add-header=i --to=i --cc=i --from?i"
	    " --in-reply-to=i --attach?i --inline?i --thread?i --signature=i"
	    " --base=i --signature-file=r --interdiff=i --range-diff=i"
	    " --creation-factor=i" GIT_REV GIT_DIFF "-*", "i*", NULL,
	    "git-format-patch(1)"),
	GIT("fsck", "-*", "i*", NULL, "git-fsck(1)"),
	/* --prune=now drops unreachable commits the reflog may still
	 * need. */
	GIT("gc", "--prune?i:destroy --max-cruft-size=i -*", "", NULL,
	    "git-gc(1)"),
	/* DEFAULT: with no path, the working directory. */
	GIT("grep", "-e=i:pattern -f=r:pattern --max-depth=i --threads=i"
	    " -m,--max-count=i -A,--after-context=i -B,--before-context=i"
	    " -C,--context=i -O,--open-files-in-pager?x --color?i -*", "i,r*",
	    NULL, "git-grep(1)"),
	GIT("hash-object", "-t=i --path=i --stdin-paths:unknown -*", "r*", NULL,
	    "git-hash-object(1)"),
	GIT("help", "-w,--web:unknown -*", "i*", NULL, "git-help(1)"),
	/*
	 * --template copies its hooks and config into the repository, and
	 * --separate-git-dir moves it where its hooks are no longer known.
	 */
	GIT("init", "--template=u --separate-git-dir=u -b,--initial-branch=i"
	    " --object-format=i --shared?i --ref-format=i -*", "w", NULL,
	    "git-init(1)"),
	/* install writes hooks and filters into the configuration. */
	GIT("lfs", "-*", "u*", "net", "git-lfs(1)"),
	GIT("log", "-n=i" GIT_REV GIT_DIFF "-*", "r*", NULL, "git-log(1)"),
	GIT("ls-files", "-x,--exclude=i -X,--exclude-from=r"
	    " --exclude-per-directory=i --with-tree=i --abbrev?i --format=i"
	    " -*", "r*", NULL, "git-ls-files(1)"),
	/* --exec is --upload-pack's older name (git's builtin/ls-remote.c) */
	GIT("ls-remote", "--upload-pack,--exec=u --sort=i"
	    " -o,--server-option=i -*",
	    "rn,i*", "net", "git-ls-remote(1)"),
	GIT("ls-tree", "--abbrev?i --format=i -*", "i*", NULL,
	    "git-ls-tree(1)"),
	/* start and register schedule git to run from cron or systemd. */
	GIT("maintenance", "--task=i --schedule=i -*", "u*", NULL,
	    "git-maintenance(1)"),
	/* --abort may lose changes made before the merge began. */
	GIT("merge", "-m,--message=i -F,--file=r -s,--strategy=u"
	    " -X,--strategy-option=i --cleanup=i --log?i -S,--gpg-sign?i"
	    " --into-name=i --abort:destroy -*", "i*", NULL, "git-merge(1)"),
	GIT("merge-base", "-*", "i*", NULL, "git-merge-base(1)"),
	GIT("mergetool", "-t,--tool=x -O=r -*", "r*", NULL,
	    "git-mergetool(1)"),
	GIT("mktree", "-*", "", "unknown", "git-mktree(1)"),
	GIT("mv", "-f,--force:destroy -*", "rd*,$w", "recursive",
	    "git-mv(1)"),
	GIT("name-rev", "--refs=i --exclude=i -*", "i*", NULL,
	    "git-name-rev(1)"),
	GITS("notes", "--ref=i", "s", NULL, "git-notes(1)"),
	GIT("notes add", "-m,--message=i -F,--file=r -C,--reuse-message=i"
	    " -c,--reedit-message=i -f,--force:destroy --separator?i -*", "i",
	    NULL, "git-notes(1)"),
	GIT("notes append", "-m,--message=i -F,--file=r"
	    " -C,--reuse-message=i -c,--reedit-message=i --separator?i -*",
	    "i", NULL, "git-notes(1)"),
	GIT("notes copy", "-f,--force:destroy -*", "i*", NULL,
	    "git-notes(1)"),
	GIT("notes edit", "-m,--message=i -F,--file=r -c,--reedit-message=i"
	    " -C,--reuse-message=i -*", "i", NULL, "git-notes(1)"),
	GIT("notes list", "", "i", NULL, "git-notes(1)"),
	GIT("notes merge", "-s,--strategy=i -*", "i", NULL, "git-notes(1)"),
	GIT("notes prune", "-*", "", NULL, "git-notes(1)"),
	GIT("notes remove", "-*", "i*", "destroy", "git-notes(1)"),
	GIT("notes show", "", "i", NULL, "git-notes(1)"),
	GIT("prune", "--expire=i -*", "i*", "destroy", "git-prune(1)"),
	/*
	 * --rebase replays only the local commits the upstream does not
	 * have onto it: nothing anyone else has is rewritten.
	 */
	GIT("pull", GIT_FETCH "-r,--rebase?i -s,--strategy=u"
	    " -X,--strategy-option=i --cleanup=i --log?i --signoff?i"
	    " -S,--gpg-sign?i -*", "rn,i*", "net", "git-pull(1)"),
	/*
	 * REFSPEC: an operand +SRC:DST forces, and :DST deletes, like
	 * --force and --delete.  A repository that is a path is written,
	 * and its hooks run.
	 */
	GIT("push", "--repo=n -f,--force:force --force-with-lease?i:force"
	    " --force-if-includes:force --mirror:force -d,--delete:force"
	    " --prune:force --receive-pack,--exec=u --recurse-submodules=i"
	    " --signed?i -o,--push-option=i -*", "nw,i*", "remote",
	    "git-push(1)"),
	GIT("range-diff", "--creation-factor=i --notes?i" GIT_DIFF "-*",
	    "i*", NULL, "git-range-diff(1)"),
	/* -u with -m or --reset overwrites the work tree. */
	GIT("read-tree", "--prefix=i --index-output=w"
	    " --exclude-per-directory=i --recurse-submodules?i -*", "i*",
	    "destroy", "git-read-tree(1)"),
	GIT("rebase", "--onto=i -C=i --whitespace=i --empty=i"
	    " -S,--gpg-sign?i -x,--exec=u -r,--rebase-merges?i"
	    " -s,--strategy=u -X,--strategy-option=i --abort:destroy -*",
	    "i*", "rewrite", "git-rebase(1)"),
	/* `git reflog REF' (show) is not a listed subcommand: unknown. */
	GITS("reflog", "-n=i" GIT_REV GIT_DIFF "-*", "s", NULL, "git-reflog(1)"),
	GIT("reflog delete", "-*", "i*", "destroy", "git-reflog(1)"),
	GIT("reflog exists", "", "i", NULL, "git-reflog(1)"),
	GIT("reflog expire", "--expire=i --expire-unreachable=i -*", "i*",
	    "destroy", "git-reflog(1)"),
	GIT("reflog show", "-n=i" GIT_REV GIT_DIFF "-*", "i*", NULL,
	    "git-reflog(1)"),
	GITS("remote", "-v,--verbose", "s", NULL, "git-remote(1)"),
	GIT("remote add", "-t=i -m=i -f:net --mirror?i -*", "i,n", NULL,
	    "git-remote(1)"),
	GIT("remote get-url", "-*", "i", NULL, "git-remote(1)"),
	GIT("remote prune", "-*", "i*", "net", "git-remote(1)"),
	GIT("remote remove", "", "i", NULL, "git-remote(1)"),
	GIT("remote rename", "-*", "i,i", NULL, "git-remote(1)"),
	GIT("remote rm", "", "i", NULL, "git-remote(1)"),
	GIT("remote set-branches", "-*", "i*", NULL, "git-remote(1)"),
	GIT("remote set-head", "-*", "i*", "net", "git-remote(1)"),
	GIT("remote set-url", "-*", "i,n*", NULL, "git-remote(1)"),
	GIT("remote show", "-*", "i*", "net", "git-remote(1)"),
	GIT("remote update", "-*", "i*", "net", "git-remote(1)"),
	GIT("repack", "--window=i --depth=i --threads=i --window-memory=i"
	    " --max-pack-size=i --filter=i --filter-to=w"
	    " --cruft-expiration=i --expire-to=w --unpack-unreachable=i"
	    " --keep-pack=i -g,--geometric=i -*", "", NULL,
	    "git-repack(1)"),
	GIT("replace", "--format=i -*", "i*", "rewrite", "git-replace(1)"),
	GIT("request-pull", "-*", "i*", "net", "git-request-pull(1)"),
	GIT("reset", "--hard:destroy --merge:destroy --keep:destroy"
	    " --recurse-submodules?i --pathspec-from-file=r -*", "i*", NULL,
	    "git-reset(1)"),
	/* Without --staged it discards the work tree's changes; with it,
	 * the rule cannot tell: destroy. */
	GIT("restore", "-s,--source=i --conflict=i --recurse-submodules?i"
	    " --pathspec-from-file=r -*", "w*", NULL, "git-restore(1)"),
	GIT("rev-list", "-n=i --disk-usage?i --abbrev?i" GIT_REV "-*", "i*",
	    NULL, "git-rev-list(1)"),
	GIT("rev-parse", "--abbrev-ref?i --short?i --prefix=i --default=i"
	    " --since=i --after=i --until=i --before=i --resolve-git-dir=r"
	    " --git-path=i --show-object-format?i --path-format=i"
	    " --disambiguate=i --exclude=i --exclude-hidden=i --glob=i"
	    " --branches?i --tags?i --remotes?i -*", "i*", NULL,
	    "git-rev-parse(1)"),
	GIT("revert", GIT_SEQ, "i*", NULL, "git-revert(1)"),
	/* --pathspec-from-file names files it deletes. */
	GIT("rm", "-f,--force:destroy -r:recursive --pathspec-from-file=u"
	    " -n,--dry-run:keep --cached:keep --no-dry-run:unknown"
	    " --no-cached:unknown -*", "d*", NULL, "git-rm(1)"),
	GIT("send-email", "--from=i --to=i --cc=i --bcc=i --subject=i"
	    " --in-reply-to=i --reply-to=i --smtp-server=x"
	    " --smtp-server-port=i --smtp-user=i --smtp-pass=i"
	    " --smtp-encryption=i --smtp-domain=i --smtp-auth=i"
	    " --smtp-server-option=i --smtp-ssl-cert-path=r --identity=i"
	    " --to-cmd=x --cc-cmd=x --header-cmd=x --sendmail-cmd=x"
	    " --compose-encoding=i --transfer-encoding=i --8bit-encoding=i"
	    " --confirm=i --suppress-cc=i --batch-size=i --relogin-delay=i"
	    " -*", "r*", "net,remote", "git-send-email(1)"),
	GIT("shortlog", "-n,--numbered -w?i --group=i" GIT_REV "-*", "i*",
	    NULL, "git-shortlog(1)"),
	GIT("show", "-n=i" GIT_REV GIT_DIFF "-*", "r*", NULL,
	    "git-show(1)"),
	GIT("show-branch", "--color?i --more?i -g,--reflog?i -*", "i*", NULL,
	    "git-show-branch(1)"),
	GIT("show-ref", "-s,--hash?i --abbrev?i --exclude-existing?i -*",
	    "i*", NULL, "git-show-ref(1)"),
	GITS("sparse-checkout", "", "s", NULL, "git-sparse-checkout(1)"),
	GIT("sparse-checkout add", "-*", "i*", NULL,
	    "git-sparse-checkout(1)"),
	GIT("sparse-checkout check-rules", "--rules-file=r -*", "", NULL,
	    "git-sparse-checkout(1)"),
	GIT("sparse-checkout disable", "", "", NULL,
	    "git-sparse-checkout(1)"),
	GIT("sparse-checkout init", "-*", "", NULL,
	    "git-sparse-checkout(1)"),
	GIT("sparse-checkout list", "", "", NULL, "git-sparse-checkout(1)"),
	GIT("sparse-checkout reapply", "-*", "", NULL,
	    "git-sparse-checkout(1)"),
	GIT("sparse-checkout set", "-*", "i*", NULL,
	    "git-sparse-checkout(1)"),
	/*
	 * `git stash' alone is push, and takes push's options; `git stash
	 * -- PATH' is too, but the rule takes PATH as the command.
	 */
	GITS("stash", "-p,--patch -S,--staged -k,--keep-index"
	    " --no-keep-index -u,--include-untracked -a,--all -q,--quiet"
	    " -m,--message=i --pathspec-from-file=r --pathspec-file-nul", "s",
	    NULL, "git-stash(1)"),
	GIT("stash apply", "-*", "i", NULL, "git-stash(1)"),
	GIT("stash branch", "", "i,i", NULL, "git-stash(1)"),
	GIT("stash clear", "", "", "destroy", "git-stash(1)"),
	GIT("stash create", "", "i*", NULL, "git-stash(1)"),
	GIT("stash drop", "-*", "i", "destroy", "git-stash(1)"),
	GIT("stash list", "-n=i" GIT_REV GIT_DIFF "-*", "", NULL,
	    "git-stash(1)"),
	GIT("stash pop", "-*", "i", NULL, "git-stash(1)"),
	GIT("stash push", "-m,--message=i --pathspec-from-file=r -*", "r*",
	    NULL, "git-stash(1)"),
	GIT("stash save", "-*", "i*", NULL, "git-stash(1)"),
	GIT("stash show", GIT_DIFF "-*", "i", NULL, "git-stash(1)"),
	GIT("stash store", "-m,--message=i -*", "i", NULL, "git-stash(1)"),
	GIT("status", "--porcelain?i -u,--untracked-files?i"
	    " --ignore-submodules?i --ignored?i --column?i"
	    " -M,--find-renames?i -*", "r*", NULL, "git-status(1)"),
	GITS("submodule", "-q,--quiet --cached", "s", NULL,
	    "git-submodule(1)"),
	GIT("submodule absorbgitdirs", "-*", "r*", NULL, "git-submodule(1)"),
	GIT("submodule add", "-b,--branch=i --name=i --reference=r"
	    " --depth=i -*", "rn,w", "net", "git-submodule(1)"),
	GIT("submodule deinit", "-f,--force:destroy -*", "r*", NULL,
	    "git-submodule(1)"),
	/* The command is a shell command line. */
	GIT("submodule foreach", "-*", "u*", NULL, "git-submodule(1)"),
	GIT("submodule init", "-*", "r*", NULL, "git-submodule(1)"),
	GIT("submodule set-branch", "-b,--branch=i -*", "u", NULL,
	    "git-submodule(1)"),
	GIT("submodule set-url", "-*", "u*", NULL, "git-submodule(1)"),
	GIT("submodule status", "-*", "r*", NULL, "git-submodule(1)"),
	GIT("submodule summary", "-n,--summary-limit=i -*", "i*", NULL,
	    "git-submodule(1)"),
	GIT("submodule sync", "-*", "r*", NULL, "git-submodule(1)"),
	GIT("submodule update", "--reference=r --depth=i -j,--jobs=i"
	    " --filter=i -f,--force:destroy --rebase:rewrite -*", "r*", "net",
	    "git-submodule(1)"),
	GIT("switch", "-c,--create=i -C,--force-create=i:destroy"
	    " --orphan=i:destroy -f,--force,--discard-changes:destroy"
	    " --conflict=i -t,--track?i --recurse-submodules?i -*", "i*", NULL,
	    "git-switch(1)"),
	GIT("symbolic-ref", "-m=i -d,--delete:destroy -*", "i,i", NULL,
	    "git-symbolic-ref(1)"),
	GIT("tag", "-d,--delete:destroy -f,--force:destroy -m,--message=i"
	    " -F,--file=r --cleanup=i -u,--local-user=i -n?i --column?i"
	    " --contains=i --no-contains=i --merged=i --no-merged=i --sort=i"
	    " --points-at=i --format=i --color?i --trailer=i -*", "i*", NULL,
	    "git-tag(1)"),
	GIT("update-index", "--chmod=i --cacheinfo=u --index-info:unknown"
	    " --index-version=i -*",
	    "r*", NULL, "git-update-index(1)"),
	/* It moves or deletes any ref: commits can be lost. */
	GIT("update-ref", "-m=i -*", "i*", "destroy", "git-update-ref(1)"),
	GIT("var", "-*", "i*", NULL, "git-var(1)"),
	GIT("verify-commit", "-*", "i*", NULL, "git-verify-commit(1)"),
	GIT("verify-tag", "--format=i -*", "i*", NULL, "git-verify-tag(1)"),
	GIT("version", "-*", "", NULL, "git-version(1)"),
	GIT("whatchanged", "-n=i" GIT_REV GIT_DIFF "-*", "r*", NULL,
	    "git-whatchanged(1)"),
	GITS("worktree", "", "s", NULL, "git-worktree(1)"),
	GIT("worktree add", "-b=i -B=i:destroy --reason=i -*", "w,i", NULL,
	    "git-worktree(1)"),
	GIT("worktree list", "--expire=i -*", "", NULL, "git-worktree(1)"),
	GIT("worktree lock", "--reason=i -*", "r", NULL, "git-worktree(1)"),
	GIT("worktree move", "-f,--force:destroy -*", "rd,w", "recursive",
	    "git-worktree(1)"),
	GIT("worktree prune", "--expire=i -*", "", NULL, "git-worktree(1)"),
	GIT("worktree remove", "-f,--force:destroy -*", "d", "recursive",
	    "git-worktree(1)"),
	GIT("worktree repair", "-*", "r*", NULL, "git-worktree(1)"),
	GIT("worktree unlock", "-*", "r", NULL, "git-worktree(1)"),
	GIT("write-tree", "--prefix=i -*", "", NULL, "git-write-tree(1)"),
	{ "go", "-h,--help", "s", GO_RUNS, NULL,
	  JH_CT_RUNS | JH_CT_SUB | JH_CT_DASHLONG | JH_CT_NOCLUSTER,
	  "go help" },
	GO("build", GO_B "-*", "r*", "net", 0, "go help build"),
	/*
	 * -modcache, -cache, -fuzzcache and -i delete what is outside the
	 * project; -testcache only expires the cached test results.
	 */
	GO("clean", "-modcache:unknown -cache:unknown -fuzzcache:unknown"
	    " -i:unknown -*", "r*", NULL, 0,
	    "go help clean"),
	GO("doc", "-*", "i*", NULL, 0, "go help doc"),
	/* -w sets GOFLAGS and the like for every later go command. */
	GO("env", "-w:unknown -u:unknown -*", "i*", NULL, 0, "go help env"),
	GO("fix", "-fix=i -*", "r*", "inplace", 0, "go help fix"),
	GO("fmt", "-mod=i -*", "r*", "inplace", 0, "go help fmt"),
	/* It runs the //go:generate lines of every Go file it reads. */
	{ "go generate", "-run=i -skip=i" GO_B "-*", "r*",
	  "go.mod,go.work", NULL,
	  JH_CT_RUNS | JH_CT_DASHLONG | JH_CT_NOCLUSTER, "go help generate" },
	GO("get", GO_B "-u?i -*", "i*", "install,net", JH_CT_INSTALL,
	    "go help get"),
	GO("install", GO_B "-*", "i*", "install,net", JH_CT_INSTALL,
	    "go help install"),
	GO("list", GO_B "-f=i -json?i -*", "i*", "net", 0, "go help list"),
	GO("mod", "", "s", NULL, JH_CT_SUB, "go help mod"),
	GO("mod download", "-reuse=r -*", "i*", "net", 0,
	    "go help mod download"),
	/* Without a file operand, go.mod in the working directory. */
	GO("mod edit", "-module=i -go=i -toolchain=i -require=i"
	    " -droprequire=i -exclude=i -dropexclude=i -replace=i"
	    " -dropreplace=i -retract=i -dropretract=i -godebug=i"
	    " -dropgodebug=i -tool=i -droptool=i -*", "w", NULL, 0,
	    "go help mod edit"),
	GO("mod graph", "-go=i -*", "", "net", 0, "go help mod graph"),
	GO("mod init", "", "i", NULL, 0, "go help mod init"),
	GO("mod tidy", "-go=i -compat=i -*", "", "install,net", 0,
	    "go help mod tidy"),
	GO("mod vendor", "-o=w -*", "", "net", 0, "go help mod vendor"),
	GO("mod verify", "", "", NULL, 0, "go help mod verify"),
	GO("mod why", "-*", "i*", "net", 0, "go help mod why"),
	GO("run", GO_B "-*", "x,A*", "net", JH_CT_POSIX, "go help run"),
	GO("test", GO_B "-run=i -bench=i -count=i -cpu=i -benchtime=i"
	    " -timeout=i -parallel=i -shuffle=i -coverprofile,--coverprofile=w"
	    " -cpuprofile,--cpuprofile=w -memprofile,--memprofile=w"
	    " -memprofilerate=i -blockprofile,--blockprofile=w"
	    " -blockprofilerate=i -mutexprofile,--mutexprofile=w"
	    " -mutexprofilefraction=i -trace,--trace=w"
	    " -outputdir,--outputdir=w -fuzz=i -fuzztime=i"
	    " -test.coverprofile,-test.cpuprofile,-test.memprofile=w"
	    " -test.blockprofile,-test.mutexprofile,-test.trace=w"
	    " -test.outputdir,-test.testlogfile,-test.gocoverdir=w"
	    " -fuzzminimizetime=i -list=i -skip=i -vet=i -args:rest -*", "r*",
	    "net", 0, "go help test, go help testflag"),
	GO("tool", "-modfile=f -n", "s", NULL, JH_CT_SUB, "go help tool"),
	GO("tool cover", "-html=r -func=r -o=w -mode=i -var=i -*", "", NULL,
	    0, "go tool cover -help"),
	GO("version", "-*", "r*", NULL, 0, "go help version"),
	GO("vet", GO_B "-*", "r*", "net", 0, "go help vet"),
	GO("work", "", "s", NULL, JH_CT_SUB, "go help work"),
	GO("work edit", "-go=i -toolchain=i -use=r -dropuse=r -replace=i"
	    " -dropreplace=i -godebug=i -dropgodebug=i -*", "w", NULL, 0,
	    "go help work edit"),
	GO("work init", "", "r*", NULL, 0, "go help work init"),
	GO("work sync", "", "", "net", 0, "go help work sync"),
	GO("work use", "-*", "r*", NULL, 0, "go help work use"),
	GO("work vendor", "-o=w -*", "", "net", 0, "go help work vendor"),
	{ "gofmt", "-w:inplace -r=i -cpuprofile=w -*", "r*", NULL,
	  "recursive", JH_CT_FILTER | JH_CT_DASHLONG | JH_CT_NOCLUSTER,
	  "gofmt(1)" },
	/*
	 * Its configuration can load linters built as plugins: code.  No
	 * "-*": its --output.FORMAT.path options write.
	 */
	{ "golangci-lint", "-c,--config=f -h,--help --version", "s",
	  GOLANGCI_RUNS, NULL, JH_CT_RUNS | JH_CT_SUB,
	  "golangci-lint --help" },
	{ "golangci-lint run", "-c,--config=f --fix -v,--verbose"
	  " --timeout=i -j,--concurrency=i --new --new-from-rev=i"
	  " -E,--enable=i -D,--disable=i --build-tags=i --tests?i --no-config"
	  " --allow-parallel-runners --max-issues-per-linter=i"
	  " --max-same-issues=i", "i*", GOLANGCI_RUNS ",go.mod,**/go.mod",
	  NULL, JH_CT_RUNS, "golangci-lint run --help" },
	{ "gpg", "-o,--output=w -r,--recipient=i -R,--hidden-recipient=i"
	  " -u,--local-user=i --default-key=i --homedir=f --options=f"
	  " -a,--armor,--armour -e,--encrypt -d,--decrypt -s,--sign"
	  " -c,--symmetric --verify --clearsign,--clear-sign"
	  " -b,--detach-sign --import:unknown --export"
	  " --export-secret-keys,--export-secret-subkeys:unknown"
	  " -k,--list-keys -K,--list-secret-keys --list-sigs --check-sigs"
	  " --fingerprint --gen-key,--generate-key:unknown"
	  " --full-generate-key,--full-gen-key:unknown"
	  " --quick-generate-key,--quick-gen-key:unknown --batch --yes --no"
	  " --passphrase=i --passphrase-file=r --passphrase-fd=i"
	  " --pinentry-mode=i --keyserver=n --recv-keys,--receive-keys:net"
	  " --send-keys:net --search-keys:net --refresh-keys:net"
	  " --fetch-keys:net --locate-keys:net --keyring=w"
	  " --no-default-keyring --trust-model=i --cipher-algo=i"
	  " --digest-algo=i --compress-algo=i --status-fd=i --logger-fd=i"
	  " --log-file,--logger-file=w --photo-viewer=x --exec-path=x"
	  " --list-options=i --verify-options=i --import-options=i"
	  " --export-options=i --keyserver-options=u --trusted-key=i"
	  " --delete-keys,--delete-key:unknown --delete-secret-keys:unknown"
	  " --delete-secret-and-public-keys:unknown --edit-key:unknown"
	  " --sign-key:unknown --lsign-key:unknown --quick-sign-key:unknown"
	  " --quick-lsign-key:unknown --quick-add-uid:unknown"
	  " --quick-revoke-uid:unknown --quick-set-expire:unknown"
	  " --gen-revoke,--generate-revocation --dearmor --enarmor"
	  " --print-md=i --list-packets --show-keys --with-colons"
	  " --with-fingerprint --with-keygrip --with-subkey-fingerprint"
	  " --keyid-format=i -q,--quiet -v,--verbose --no-tty --version"
	  " -h,--help --always-trust -n,--dry-run --status-file=w"
	  " --command-fd=i --default-recipient=i --encrypt-to=i -z=i"
	  " --display-charset,--charset=i -t,--textmode --no-options"
	  " --expert --card-status:unknown --card-edit:unknown"
	  " --change-pin:unknown", "r*", NULL, NULL, JH_CT_FILTER | GNU,
	  "gpg(1)" },
	/* -D and -P set properties the build scripts read: unknown. */
	{ "gradle", "-p,--project-dir=c -b,--build-file=f"
	  " -c,--settings-file=f -I,--init-script=f -D,--system-prop=u"
	  " -P,--project-prop=u -g,--gradle-user-home=w"
	  " --project-cache-dir=w -x,--exclude-task=i --include-build=f"
	  " --max-workers=i --console=i --warning-mode=i --priority=i"
	  " --update-locks=i -F,--dependency-verification=i"
	  " --write-verification-metadata=i --tests=i -*", "i*",
	  "build.gradle,build.gradle.kts,settings.gradle,settings.gradle.kts,"
	  "**/build.gradle,**/build.gradle.kts,gradle.properties,"
	  "gradlew,gradle/**,buildSrc/**,init.gradle,init.gradle.kts",
	  "install,net",
	  JH_CT_RUNS | JH_CT_NET | JH_CT_INSTALL, "gradle --help" },
	{ "gradlew", "-p,--project-dir=c -b,--build-file=f"
	  " -c,--settings-file=f -I,--init-script=f -D,--system-prop=u"
	  " -P,--project-prop=u -g,--gradle-user-home=w"
	  " --project-cache-dir=w -x,--exclude-task=i --include-build=f"
	  " --max-workers=i --console=i --warning-mode=i --priority=i"
	  " --update-locks=i -F,--dependency-verification=i"
	  " --write-verification-metadata=i --tests=i -*", "i*",
	  "build.gradle,build.gradle.kts,settings.gradle,settings.gradle.kts,"
	  "**/build.gradle,**/build.gradle.kts,gradle.properties,"
	  "gradlew,gradle/**,buildSrc/**,init.gradle,init.gradle.kts",
	  "install,net",
	  JH_CT_RUNS | JH_CT_NET | JH_CT_INSTALL, "gradle --help" },
	/* DEFAULT: -r with no file reads the working directory. */
	{ "grep", GREP_OPTS, "i,r*", NULL, NULL, GFILT, "grep(1)" },
	ZIP_E("gunzip", "-S,--suffix=u -r,--recursive:recursive"
	    " -N,--name:unknown -*",
	    "gzip(1)"),
	ZIP_E("gzip", "-S,--suffix=u -r,--recursive:recursive"
	    " -N,--name:unknown -*",
	    "gzip(1)"),
	{ "head", "-n,--lines=i -c,--bytes=i -*", "r*", NULL, NULL, GFILT,
	  "head --help" },
	{ "hexdump", "-e,--format=i -f,--format-file=r -n,--length=i"
	  " -s,--skip=i -*", "r*", NULL, NULL, GFILT, "hexdump(1)" },
	/* An operand or -F sets the host name. */
	{ "hostname", "-F,--file=u -*", "u", NULL, NULL, GNU,
	  "hostname(1)" },
	{ "htop", "-d,--delay=i -u,--user?i -p,--pid=i -s,--sort-key=i"
	  " -F,--filter=i -*", "", NULL, NULL, GNU, "htop(1)" },
	{ "id", "-*", "i*", NULL, NULL, GNU, "id --help" },
	/* With -d every operand is a directory it creates. */
	{ "install", "-t,--target-directory=w:target -m,--mode=i"
	  " -o,--owner=i -g,--group=i -S,--suffix=u --backup?i"
	  " --strip-program=x --context?i -*", "rw*,$w", NULL, NULL, GNU,
	  "install --help" },
	{ "ionice", "-c,--class=i -n,--classdata=i -t,--ignore -p,--pid=i"
	  " -P,--pgid=i -u,--uid=i", "P", NULL, NULL,
	  JH_CT_WRAPPER | JH_CT_POSIX | GNU, "ionice(1)" },
	/*
	 * The class path is a list joined by ':'.  -D sets system
	 * properties, some of which load classes; -javaagent:, -agentlib:
	 * and -XX: are not listed (they hold a ':'), so they are unknown.
	 */
	/* Sorts imports in place, unless --check or --diff. */
	{ "isort", "--settings-path,--sp,--settings-file,--settings=r"
	  " --profile=i -l,--line-length=i --skip=i --skip-glob=i --src=r"
	  " --virtual-env=r --conda-env=r -*", "r*", NULL,
	  "inplace,recursive", 0, "isort --help" },
	{ "java", "-cp,-classpath,--class-path=f -jar=x -m,--module=i"
	  " -p,--module-path=f --upgrade-module-path=f -D=u --add-modules=i"
	  " --add-opens=i --add-exports=i --add-reads=i"
	  " --enable-native-access=i --enable-preview -ea -da -esa -dsa"
	  " -enableassertions -disableassertions -version,--version:exit"
	  " -showversion --show-version -help,--help,-h:exit -server -client"
	  " -verbose --dry-run --source=i -Xmx=i -Xms=i -Xss=i", "x,A*",
	  NULL, NULL, JH_CT_RUNS | JH_CT_POSIX | JH_CT_DASHLONG |
	  JH_CT_NOCLUSTER, "java(1)" },
	/* Annotation processors on the class path run.  ATFILE: @FILE
	 * holds more options. */
	{ "javac", "-d=w -s=w -h=w -cp,-classpath,--class-path=f"
	  " -sourcepath,--source-path=r -processorpath,--processor-path=f"
	  " -processor=u -p,--module-path=f --module-source-path=r"
	  " --upgrade-module-path=f --system=r --add-modules=i"
	  " --limit-modules=i --add-exports=i --add-reads=i --patch-module=u"
	  " --release=i -source,--source=i -target,--target=i -encoding=i"
	  " -A=i -J=u -g -nowarn -verbose -deprecation -Werror"
	  " --enable-preview -parameters -version --version -help --help"
	  " --help-extra -Xlint", "r*", NULL, NULL,
	  JH_CT_RUNS | JH_CT_DASHLONG | JH_CT_NOCLUSTER, "javac(1)" },
	/*
	 * A module option (f) loads a package by its name, or the file a
	 * path names: an exec of that file (--testEnvironment jsdom is one
	 * of the project's packages).  yargs takes each in kebab case too.
	 */
	{ "jest", "-c,--config=f --rootDir=c --roots=r"
	  " --testPathPattern,--testPathPatterns=i -t,--testNamePattern=i"
	  " --coverageDirectory=w --outputFile=w --cacheDirectory=w"
	  " --globalSetup=f --globalTeardown=f --setupFiles=f"
	  " --setupFilesAfterEnv=f --env,--testEnvironment=f --testRunner=f"
	  " --reporters=f --transform=u --preset=u --projects=c"
	  " --moduleNameMapper=u --resolver=f --snapshotResolver=f"
	  " --testSequencer=f --watchPlugins=f --testResultsProcessor=f"
	  " --runner=f --filter=f --prettierPath=f --snapshotSerializers=f"
	  " --modulePaths=u --moduleDirectories=u --haste=u"
	  " --testEnvironmentOptions=u --maxWorkers,-w=i --shard=i"
	  " --testTimeout=i --seed=i --selectProjects=i --changedSince=i"
	  " --collectCoverageFrom=i --coverageProvider=i"
	  " --coverageReporters=u --bail?i -*", "i*",
	  "jest.config.js,jest.config.ts,jest.config.mjs,jest.config.cjs,"
	  "jest.config.json,babel.config.js,babel.config.cjs,babel.config.mjs,"
	  ".babelrc,.babelrc.js," NPM_RUNS, NULL, JH_CT_RUNS | JH_CT_CAMEL,
	  "jest --help" },
	{ "join", "-1=i -2=i -j=i -t=i -o=i -e=i -a=i -v=i -*", "r,r", NULL,
	  NULL, GFILT, "join --help" },
	/*
	 * --arg, --argjson, --slurpfile and --rawfile take two words; the
	 * second falls to the operands, which are all r (the filter too),
	 * so that a file --slurpfile names is read.
	 */
	/* --arg NAME VALUE, --rawfile NAME FILE: two words each */
	{ "jq", "--arg=ii --argjson=ii --slurpfile=ir --rawfile=ir --argfile=ir"
	  " -f,--from-file=u:pattern -L,--library-path=u --indent=i"
	  " --run-tests:unknown -*", "i,r*", NULL, NULL, JH_CT_FILTER, "jq(1)" },
	/* Signals are no path effect: what they stop is unknown. */
	/* python3 -m json.tool [infile [outfile]] */
	{ "json.tool", "--sort-keys --no-ensure-ascii --json-lines --indent=i"
	  " --tab --no-indent --compact -*", "r,w", NULL, NULL,
	  JH_CT_FILTER | JH_CT_ABBREV, "python3 -m json.tool -h" },
	{ "kill", "-s,--signal=i -n=i -*", "u*", NULL, NULL, 0,
	  "kill(1), bash(1)" },
	{ "killall", "-*", "u*", NULL, NULL, 0, "killall(1)" },
	/* signals every process but its own session's: never read as
	 * killall by its version suffix */
	{ "killall5", "-*", "", NULL, "unknown", 0, "killall5(8)" },
	{ "kubectl", KUBE_G, "s", NULL, NULL,
	  JH_CT_RUNS | JH_CT_NET | JH_CT_SUB, "kubectl --help" },
	KUBE("annotate", "-f,--filename=r -l,--selector=i", "i*", NULL,
	    "kubectl annotate --help"),
	KUBE("api-resources", "-o,--output=i", "", NULL,
	    "kubectl api-resources --help"),
	KUBE("apply", "-f,--filename=r -k,--kustomize=r -R,--recursive"
	    " -l,--selector=i -o,--output=i", "i*", NULL,
	    "kubectl apply --help"),
	KUBE("auth", "", "i*", NULL, "kubectl auth --help"),
	KUBE("cluster-info", "", "i*", NULL, "kubectl cluster-info --help"),
	/* set-credentials --exec-command names a program kubectl runs. */
	KUBE("config", "--exec-command=u --exec-arg=u --auth-provider=u"
	    " --auth-provider-arg=u", "i*", NULL, "kubectl config --help"),
	KUBE("cp", "-c,--container=i", "rw,rw", NULL, "kubectl cp --help"),
	KUBE("create", "-f,--filename=r -k,--kustomize=r -R,--recursive"
	    " -o,--output=i", "i*", NULL, "kubectl create --help"),
	KUBE("delete", "-f,--filename=r -k,--kustomize=r -R,--recursive"
	    " -l,--selector=i", "i*", NULL, "kubectl delete --help"),
	KUBE("describe", "-f,--filename=r -l,--selector=i", "i*", NULL,
	    "kubectl describe --help"),
	KUBE("diff", "-f,--filename=r -k,--kustomize=r -R,--recursive", "",
	    NULL, "kubectl diff --help"),
	KUBE("edit", "-f,--filename=r", "i*", "unknown",
	    "kubectl edit --help"),
	KUBE("exec", "-c,--container=i --:rest", "i,A*", NULL,
	    "kubectl exec --help"),
	KUBE("explain", "", "i*", NULL, "kubectl explain --help"),
	KUBE("get", "-f,--filename=r -l,--selector=i -o,--output=i"
	    " -L,--label-columns=i --field-selector=i --sort-by=i"
	    " --template=i", "i*", NULL, "kubectl get --help"),
	KUBE("kustomize", "--helm-command=x --enable-helm"
	    " --enable-alpha-plugins:unknown --enable-exec:unknown"
	    " --load-restrictor=u --mount=u --env=i -o,--output=w", "r", NULL,
	    "kubectl kustomize --help"),
	KUBE("label", "-f,--filename=r -l,--selector=i", "i*", NULL,
	    "kubectl label --help"),
	KUBE("logs", "-c,--container=i -l,--selector=i --since=i"
	    " --since-time=i --tail=i", "i*", NULL, "kubectl logs --help"),
	KUBE("patch", "-p,--patch=i --patch-file=r --type=i"
	    " -f,--filename=r", "i*", NULL, "kubectl patch --help"),
	KUBE("port-forward", "--address=i", "i*", NULL,
	    "kubectl port-forward --help"),
	KUBE("rollout", "-f,--filename=r", "i*", NULL,
	    "kubectl rollout --help"),
	KUBE("run", "--image=i --env=i --overrides=i -l,--labels=i --:rest",
	    "i,A*", NULL, "kubectl run --help"),
	KUBE("scale", "--replicas=i -f,--filename=r", "i*", NULL,
	    "kubectl scale --help"),
	KUBE("top", "-l,--selector=i", "i*", NULL, "kubectl top --help"),
	KUBE("version", "-o,--output=i", "", NULL, "kubectl version --help"),
	KUBE("wait", "--for=i --timeout=i -f,--filename=r -l,--selector=i",
	    "i*", NULL, "kubectl wait --help"),
	/* ATFILE: @FILE holds more options. */
	{ "ld", "-o=w -T,--script=r -L,--library-path=r -l,--library=i"
	  " --plugin,-plugin=x --version-script=r --dynamic-list=r"
	  " -e,--entry=i -soname,--soname=i -rpath=i -rpath-link=r -Map=w"
	  " --dependency-file=w -z=i --sysroot=r -m=i --build-id?i"
	  " --hash-style=i -shared -static -Bstatic -Bdynamic -s,--strip-all"
	  " -S,--strip-debug --gc-sections --no-undefined --as-needed"
	  " --no-as-needed --whole-archive --no-whole-archive --start-group"
	  " --end-group -r,--relocatable -pie -no-pie --export-dynamic -E"
	  " --verbose -v,--version --help -O=i -g -q -t", "r*", NULL, NULL,
	  JH_CT_DASHLONG | JH_CT_NOCLUSTER, "ld(1)" },
	/* It runs a shell (!), an editor (v) and $LESSOPEN. */
	/* It may run the program to list its libraries (ld.so(8)). */
	{ "ldd", "-v,--verbose -u,--unused -d,--data-relocs"
	  " -r,--function-relocs --version --help", "x*", NULL, NULL, 0,
	  "ldd --help" },
	{ "less", "-k,--lesskey-file=f -o,--log-file=w -O,--LOG-FILE=w"
	  " -T,--tag-file=r -t,--tag=i -p,--pattern=i -P,--prompt=i"
	  " -b,--buffers=i -h,--max-back-scroll=i -j,--jump-target=i"
	  " -x,--tabs=i -y,--max-forw-scroll=i -z,--window=i"
	  " --lesskey-src=f --lesskey-content=u --line-num-width=i"
	  " --status-col-width=i --wheel-lines=i --rscroll=i -*", "r*", NULL,
	  NULL,
	  JH_CT_RUNS | JH_CT_FILTER, "less(1)" },
	/* A link is another way to write its target: a hard link keeps
	 * no trace of it, and a symbolic one is followed by the commands
	 * after it on the same line before anything looks. */
	/* -r: a relative target is made from the working directory */
	{ "ln", "-t,--target-directory=w:target -S,--suffix=u --backup?i"
	  " -s,--symbolic:symbolic -r,--relative:unknown -*", "rw*,$w", NULL,
	  NULL, GNU,
	  "ln --help" },
	/* DEFAULT: with no operand, the working directory. */
	{ "ls", "--block-size=i --color?i -F,--classify?i --format=i"
	  " --hide=i --hyperlink?i --indicator-style=i -I,--ignore=i"
	  " --quoting-style=i --sort=i --time=i --time-style=i"
	  " -T,--tabsize=i -w,--width=i -R,--recursive:recursive -*", "m*",
	  NULL, NULL, GNU, "ls --help" },
	{ "lsof", "-*", "i*", NULL, NULL, 0, "lsof(8)" },
	/*
	 * The makefiles' recipes run: make needs exec on them.  KEYVAL: a
	 * VAR=value operand (CC=..., SHELL=...) changes every command the
	 * makefile runs, which the A rule does not see.
	 */
	{ "make", "-C,--directory=c -f,--file,--makefile=f"
	  " -I,--include-dir=f -j,--jobs?i -l,--load-average,--max-load?i"
	  " -o,--old-file,--assume-old=i -W,--what-if,--new-file,--assume-new=i"
	  " -O,--output-sync?i --eval,-E=u --debug?i --jobserver-auth=i"
	  " --jobserver-style=i --shuffle?i -*", "A*",
	  "Makefile,makefile,GNUmakefile,**/*.mk", NULL, JH_CT_RUNS | GNU,
	  "make --help" },
	{ "man", "-P,--pager=x -H,--html?x -C,--config-file=f -M,--manpath=r"
	  " -L,--locale=i -m,--systems=i -S,-s,--sections=i -e,--extension=i"
	  " -R,--recode=i -E,--encoding=i -p,--preprocessor=i"
	  " -T,--troff-device?i -X,--gxditview?i -r,--prompt=i --warnings?i"
	  " -*", "r*", NULL, NULL, GNU, "man(1)" },
	AWK_E("mawk", "mawk(1)"),
	SUM_E("md5sum", "md5sum --help"),
	/* setup BUILDDIR [SRCDIR]; subprojects' wraps are downloaded. */
	{ "meson", "-C=c --prefix=w --buildtype=i -D=u --native-file=f"
	  " --cross-file=f --backend=i -j,--jobs=i --suite=i --no-suite=i"
	  " --setup=i --wrapper=x --repeat=i --num-processes=i"
	  " -t,--timeout-multiplier=i --destdir=w --wrap-mode=i"
	  " --force-fallback-for=i --pkg-config-path=r --cmake-prefix-path=r"
	  " --bindir=w --libdir=w --includedir=w --datadir=w --sysconfdir=w"
	  " --localstatedir=w --libexecdir=w --mandir=w --infodir=w"
	  " --localedir=w --sbindir=w --sharedstatedir=w --default-library=i"
	  " --warnlevel=i --unity=i --layout=i --optimization=i -*", "i,w,r*",
	  "meson.build,**/meson.build,meson_options.txt,meson.options,"
	  "**/meson.options", "net", JH_CT_RUNS | GNU, "meson --help" },
	{ "mkdir", "-m,--mode=i --context?i -*", "w*", NULL, NULL, GNU,
	  "mkdir --help" },
	{ "mktemp", "--suffix=i -p=w --tmpdir?w -*", "w", NULL, NULL, GNU,
	  "mktemp --help" },
	/* It runs a shell (!) and an editor (v). */
	{ "more", "-n,--lines=i -*", "r*", NULL, NULL,
	  JH_CT_RUNS | JH_CT_FILTER, "more(1)" },
	{ "mv", "-t,--target-directory=w:target -S,--suffix=u --backup?i -*",
	  "rd*,$w", NULL, "recursive", GNU, "mv --help" },
	/*
	 * A goal PREFIX:GOAL or GROUP:ARTIFACT:VERSION:GOAL runs any
	 * plugin, fetched: install.  -D sets properties the plugins read
	 * (exec.executable): unknown.
	 */
	{ "mvn", "-f,--file=f -s,--settings=f -gs,--global-settings=f"
	  " -t,--toolchains=f -gt,--global-toolchains=f -D,--define=u"
	  " -P,--activate-profiles=i -pl,--projects=i -rf,--resume-from=i"
	  " -T,--threads=i -l,--log-file=w -b,--builder=i -e,--errors"
	  " -X,--debug -q,--quiet -o,--offline -U,--update-snapshots"
	  " -B,--batch-mode -N,--non-recursive -am,--also-make"
	  " -amd,--also-make-dependents -V,--show-version -v,--version"
	  " -h,--help -fae,--fail-at-end -ff,--fail-fast -fn,--fail-never"
	  " -C,--strict-checksums -c,--lax-checksums"
	  " -npu,--no-plugin-updates -cpu,--check-plugin-updates"
	  " -ntp,--no-transfer-progress -nsu,--no-snapshot-updates"
	  " --color=i", "i*", "pom.xml,**/pom.xml,.mvn/**", "install,net",
	  JH_CT_RUNS | JH_CT_NET | JH_CT_INSTALL | JH_CT_DASHLONG |
	  JH_CT_NOCLUSTER, "mvn --help" },
	{ "mvnw", "-f,--file=f -s,--settings=f -gs,--global-settings=f"
	  " -t,--toolchains=f -gt,--global-toolchains=f -D,--define=u"
	  " -P,--activate-profiles=i -pl,--projects=i -rf,--resume-from=i"
	  " -T,--threads=i -l,--log-file=w -b,--builder=i -e,--errors"
	  " -X,--debug -q,--quiet -o,--offline -U,--update-snapshots"
	  " -B,--batch-mode -N,--non-recursive -am,--also-make"
	  " -amd,--also-make-dependents -V,--show-version -v,--version"
	  " -h,--help -fae,--fail-at-end -ff,--fail-fast -fn,--fail-never"
	  " -C,--strict-checksums -c,--lax-checksums"
	  " -npu,--no-plugin-updates -cpu,--check-plugin-updates"
	  " -ntp,--no-transfer-progress -nsu,--no-snapshot-updates"
	  " --color=i", "i*", "pom.xml,**/pom.xml,.mvn/**,mvnw",
	  "install,net", JH_CT_RUNS | JH_CT_NET | JH_CT_INSTALL |
	  JH_CT_DASHLONG | JH_CT_NOCLUSTER, "mvn --help" },
	/* Plugins named in its configuration run. */
	{ "mypy", "--config-file=f --cache-dir=w --python-executable=x"
	  " --python-version=i -p,--package=i -m,--module=i -c,--command=i"
	  " --exclude=i --junit-xml=w --html-report=w --linecount-report=w"
	  " --txt-report=w --xml-report=w --any-exprs-report=w"
	  " --cobertura-xml-report=w --lineprecision-report=w"
	  " --linecoverage-report=w --xslt-html-report=w"
	  " --xslt-txt-report=w --custom-typeshed-dir=r"
	  " --custom-typing-module=i --always-true=i --always-false=i"
	  " --enable-error-code=i --disable-error-code=i --platform=i"
	  " --shadow-file:unknown --follow-imports=i"
	  " --install-types:install,net --find-occurrences=i"
	  " --soft-error-limit=i -O,--output=i --junit-format=i"
	  " --package-root=r -*", "r*",
	  "mypy.ini,.mypy.ini,pyproject.toml,setup.cfg", NULL,
	  JH_CT_RUNS | GNU, "mypy --help" },
	/* ^T runs a command. */
	{ "nano", "-*", "w*", NULL, "unknown", JH_CT_RUNS, "nano(1)" },
	{ "nice", "-n,--adjustment=i -*", "P", NULL, NULL,
	  JH_CT_WRAPPER | JH_CT_POSIX | GNU, "nice --help" },
	{ "ninja", "-C=c -f=f -j=i -k=i -l=i -d=i -t=u -w=i -n -v --verbose"
	  " --quiet --version -h", "i*", "build.ninja", NULL,
	  JH_CT_RUNS, "ninja -h" },
	{ "nl", "-b,--body-numbering=i -d,--section-delimiter=i"
	  " -f,--footer-numbering=i -h,--header-numbering=i"
	  " -i,--line-increment=i -l,--join-blank-lines=i"
	  " -n,--number-format=i -s,--number-separator=i"
	  " -v,--starting-line-number=i -w,--number-width=i -*", "r*", NULL,
	  NULL, GFILT, "nl --help" },
	/* ATFILE: @FILE holds more options. */
	{ "nm", "--target=i --plugin=x -t,--radix=i -f,--format=i -*", "r*",
	  NULL, NULL, GNU, "nm --help" },
	/* With no script (or -) node runs its standard input. */
	{ "node", "-v,--version:exit -h,--help:exit"
	  " -e,--eval=u:pattern -p,--print=u:pattern -r,--require=u"
	  " --import=u --loader,--experimental-loader=u -C,--conditions=i"
	  " --env-file=f --env-file-if-exists=f --input-type=i --inspect?n"
	  " --inspect-brk?n --inspect-wait?n --inspect-port=n --title=i"
	  " --openssl-config=f --icu-data-dir=r --redirect-warnings=w"
	  " --report-dir,--report-directory=w --report-filename=w"
	  " --diagnostic-dir=w --cpu-prof-dir=w --heap-prof-dir=w"
	  " --cpu-prof-name=w --heap-prof-name=w --secure-heap=i"
	  " --secure-heap-min=i --experimental-policy=r --policy-integrity=i"
	  " --test:exit --test-reporter=f --test-reporter-destination=w"
	  " --test-name-pattern=i --test-skip-pattern=i --test-concurrency=i"
	  " --test-shard=i --test-timeout=i --watch-path=r --disable-proto=i"
	  " --unhandled-rejections=i --dns-result-order=i"
	  " --heapsnapshot-signal=i --heapsnapshot-near-heap-limit=i"
	  " --localstorage-file=w --run=u --snapshot-blob=r"
	  " --build-snapshot=u --stack-trace-limit=i"
	  " --max-http-header-size=i --tls-keylog=w --use-largepages=i"
	  " --trace-event-categories=i --trace-event-file-pattern=w"
	  " --experimental-config-file=f -*", "x,A*",
	  NULL, NULL,
	  JH_CT_RUNS | JH_CT_POSIX, "node --help" },
	{ "nohup", "--help --version", "P", NULL, NULL,
	  JH_CT_WRAPPER | JH_CT_POSIX, "nohup --help" },
	{ "npm", "-v,--version -h,--help" NPM_G, "s", NPM_RUNS, NULL,
	  JH_CT_RUNS | JH_CT_SUB | JH_CT_ABBREV, "npm(1)" },
	NPM("add", "", "r*", "install,net", 0, "npm-install(1)"),
	/* audit fix installs. */
	/* audit reports; audit fix installs what it reports */
	NPM("audit", "--audit-level=i", "s", "net", JH_CT_SUB,
	    "npm-audit(1)"),
	NPM("audit fix", "--audit-level=i", "", "install,net", 0,
	    "npm-audit(1)"),
	NPM("audit signatures", "", "", "net", 0, "npm-audit(1)"),
	NPM("cache", "", "u*", "net", 0, "npm-cache(1)"),
	NPM("ci", "", "", "install,net", 0, "npm-ci(1)"),
	NPM("config", "", "s", NULL, JH_CT_SUB, "npm-config(1)"),
	/* Configuration can set script-shell and node-options. */
	NPM("config delete", "", "u*", NULL, 0, "npm-config(1)"),
	NPM("config edit", "", "", "unknown", 0, "npm-config(1)"),
	NPM("config get", "", "i*", NULL, 0, "npm-config(1)"),
	NPM("config list", "", "", NULL, 0, "npm-config(1)"),
	NPM("config ls", "", "", NULL, 0, "npm-config(1)"),
	NPM("config set", "", "u*", NULL, 0, "npm-config(1)"),
	NPM("create", "-y,--yes", "i,A*", "install,net", 0, "npm-init(1)"),
	NPM("dedupe", "", "", "install,net", 0, "npm-dedupe(1)"),
	NPM("doctor", "", "i*", "net", 0, "npm-doctor(1)"),
	NPM("exec", "-p,--package=u -c,--call=u", "P", "install,net",
	    JH_CT_POSIX, "npm-exec(1)"),
	NPM("explain", "", "i*", NULL, 0, "npm-explain(1)"),
	NPM("fund", "", "i*", "net", 0, "npm-fund(1)"),
	NPM("help", "", "i*", NULL, 0, "npm-help(1)"),
	NPM("i", "", "r*", "install,net", 0, "npm-install(1)"),
	NPM("info", "", "i*", "net", 0, "npm-view(1)"),
	/* npm init NAME runs the package create-NAME. */
	NPM("init", "-y,--yes", "i,A*", "install,net", 0, "npm-init(1)"),
	NPM("install", "", "r*", "install,net", 0, "npm-install(1)"),
	NPM("link", "", "r*", "install", 0, "npm-link(1)"),
	NPM("list", "", "i*", NULL, 0, "npm-ls(1)"),
	NPM("ll", "", "i*", NULL, 0, "npm-ls(1)"),
	/* It writes the registry's token into ~/.npmrc. */
	NPM("login", "", "", "net,unknown", 0, "npm-login(1)"),
	NPM("logout", "", "", "net", 0, "npm-logout(1)"),
	NPM("ls", "", "i*", NULL, 0, "npm-ls(1)"),
	NPM("outdated", "", "i*", "net", 0, "npm-outdated(1)"),
	NPM("pack", "--pack-destination=w", "r*", NULL, 0, "npm-pack(1)"),
	NPM("ping", "", "", "net", 0, "npm-ping(1)"),
	NPM("pkg", "", "s", NULL, JH_CT_SUB, "npm-pkg(1)"),
	/* set and delete write package.json, scripts included. */
	NPM("pkg delete", "", "u*", NULL, 0, "npm-pkg(1)"),
	NPM("pkg fix", "", "", NULL, 0, "npm-pkg(1)"),
	NPM("pkg get", "", "i*", NULL, 0, "npm-pkg(1)"),
	NPM("pkg set", "", "u*", NULL, 0, "npm-pkg(1)"),
	NPM("prefix", "", "", NULL, 0, "npm-prefix(1)"),
	NPM("prune", "", "i*", NULL, 0, "npm-prune(1)"),
	/* Publishing a package is publishing to a remote, as a push is. */
	NPM("publish", "", "r*", "net,remote", 0, "npm-publish(1)"),
	NPM("rebuild", "", "i*", "install", 0, "npm-rebuild(1)"),
	NPM("remove", "", "i*", "install,net", 0, "npm-uninstall(1)"),
	NPM("restart", "--:rest", "A*", NULL, 0, "npm-restart(1)"),
	NPM("rm", "", "i*", "install,net", 0, "npm-uninstall(1)"),
	NPM("root", "", "", NULL, 0, "npm-root(1)"),
	NPM("run", "--:rest --if-present", "i,A*", NULL, 0,
	    "npm-run-script(1)"),
	NPM("run-script", "--:rest --if-present", "i,A*", NULL, 0,
	    "npm-run-script(1)"),
	NPM("search", "", "i*", "net", 0, "npm-search(1)"),
	NPM("show", "", "i*", "net", 0, "npm-view(1)"),
	NPM("start", "--:rest", "A*", NULL, 0, "npm-start(1)"),
	NPM("stop", "--:rest", "A*", NULL, 0, "npm-stop(1)"),
	NPM("t", "--:rest", "A*", NULL, 0, "npm-test(1)"),
	NPM("test", "--:rest", "A*", NULL, 0, "npm-test(1)"),
	NPM("uninstall", "", "i*", "install,net", 0, "npm-uninstall(1)"),
	NPM("up", "", "i*", "install,net", 0, "npm-update(1)"),
	NPM("update", "", "i*", "install,net", 0, "npm-update(1)"),
	/* It runs the version scripts, and commits and tags in git. */
	NPM("version", "--preid=i -m,--message=i", "i", NULL, 0,
	    "npm-version(1)"),
	NPM("view", "", "i*", "net", 0, "npm-view(1)"),
	NPM("whoami", "", "", "net", 0, "npm-whoami(1)"),
	NPM("why", "", "i*", NULL, 0, "npm-explain(1)"),
	NPM("x", "-p,--package=i -c,--call=u", "P", "install,net",
	    JH_CT_POSIX, "npm-exec(1)"),
	{ "nproc", "--ignore=i -*", "", NULL, NULL, GNU, "nproc --help" },
	{ "npx", "-p,--package=u -c,--call=u -y,--yes --no" NPM_G, "P",
	  NPM_RUNS, "install,net", JH_CT_RUNS | JH_CT_POSIX | JH_CT_ABBREV,
	  "npx(1)" },
	{ "numfmt", "-d,--delimiter=i --field=i --format=i --from=i"
	  " --from-unit=i --header?i --invalid=i --padding=i --round=i"
	  " --suffix=i --to=i --to-unit=i -*", "i*", NULL, NULL, GFILT,
	  "numfmt --help" },
	/* An editor that can run anything; exrc files run where set. */
	{ "nvim", "-c=u -S=f -u=f -i=w -w=w -W=w -s=r -T=i -t=i -q=r -*",
	  "w*", ".exrc,.nvimrc,.nvim.lua", "unknown", JH_CT_RUNS, "nvim(1)" },
	/* ATFILE: @FILE holds more options. */
	{ "objdump", "--target=i -b=i -m,--architecture=i -j,--section=i"
	  " -M,--disassembler-options=i --start-address=i --stop-address=i"
	  " --prefix=i --prefix-strip=i --dwarf?i --visualize-jumps?i"
	  " --disassemble?i --demangle?i -S,--source:unknown"
	  " --source-comment?u -I,--include=u -*", "r*", NULL, NULL, GNU,
	  "objdump --help" },
	{ "od", "-A,--address-radix=i -j,--skip-bytes=i -N,--read-bytes=i"
	  " -S=i --strings?i -t,--format=i -w,--width?i --endian=i -*", "r*",
	  NULL, NULL,
	  GFILT, "od --help" },
	/* The default application of a file may run it. */
	{ "open", "-a=i -b=i -*", "u*", NULL, "unknown", JH_CT_RUNS,
	  "open(1) (macOS)" },
	{ "openssl", "", "s", NULL, NULL,
	  JH_CT_SUB | JH_CT_DASHLONG | JH_CT_NOCLUSTER, "openssl(1)" },
	OSSL_E("base64", "", "", NULL, "openssl-enc(1)"),
	OSSL_E("dgst", "-sign=r -verify=r -prverify=r -signature=r -hmac=i"
	    " -mac=i -macopt=i -sigopt=i", "r*", NULL, "openssl-dgst(1)"),
	OSSL_E("ec", "-param_out -pubout -pubin", "", NULL, "openssl-ec(1)"),
	OSSL_E("ecparam", "-name=i", "", NULL, "openssl-ecparam(1)"),
	OSSL_E("enc", "-k=i -kfile=r -K=i -iv=i -S=i -md=i -iter=i", "",
	    NULL, "openssl-enc(1)"),
	OSSL_E("genpkey", "-algorithm=i -pkeyopt=i -paramfile=r", "", NULL,
	    "openssl-genpkey(1)"),
	OSSL_E("genrsa", "", "i", NULL, "openssl-genrsa(1)"),
	OSSL_E("list", "", "", NULL, "openssl-list(1)"),
	OSSL_E("pkcs12", "-inkey=r -certfile=r -name=i -CAfile=r -caname=i",
	    "", NULL, "openssl-pkcs12(1)"),
	OSSL_E("pkey", "", "", NULL, "openssl-pkey(1)"),
	OSSL_E("rand", "", "i", NULL, "openssl-rand(1)"),
	OSSL_E("req", "-key=r -keyout=w -newkey=r -days=i -subj=i -addext=i"
	    " -extensions=i -reqexts=i -set_serial=i -sigopt=i -pkeyopt=i"
	    " -CA=r -CAkey=r -section=i", "", NULL, "openssl-req(1)"),
	OSSL_E("rsa", "", "", NULL, "openssl-rsa(1)"),
	OSSL_E("s_client", "-connect=n -host=n -port=i -servername=i"
	    " -CAfile=r -CApath=r -cert=r -key=r -cert_chain=r -starttls=i"
	    " -proxy=n -sess_out=w -sess_in=r -keylogfile=w -msgfile=w"
	    " -alpn=i -verify=i", "n*", "net", "openssl-s_client(1)"),
	OSSL_E("sha256", "", "r*", NULL, "openssl-dgst(1)"),
	OSSL_E("speed", "", "i*", NULL, "openssl-speed(1)"),
	OSSL_E("verify", "-CAfile=r -CApath=r -untrusted=r -trusted=r"
	    " -CRLfile=r", "r*", NULL, "openssl-verify(1)"),
	OSSL_E("version", "", "", NULL, "openssl-version(1)"),
	/* -CAcreateserial writes a serial file beside the CA. */
	OSSL_E("x509", "-signkey=r -key=r -CA=r -CAkey=r -CAserial=w"
	    " -CAcreateserial:unknown -days=i -extfile=r -extensions=i"
	    " -set_serial=i -subj=i -ext=i -checkend=i -nameopt=i -certopt=i"
	    " -sigopt=i -copy_extensions=i -force_pubkey=r", "", NULL,
	    "openssl-x509(1)"),
	{ "paste", "-d,--delimiters=i -*", "r*", NULL, NULL, GFILT,
	  "paste --help" },
	/* CWDWRITE: without ORIGFILE it writes the files the patch names,
	 * under -d or the working directory. */
	{ "patch", "-i,--input=r -o,--output=w -d,--directory=c"
	  " -p,--strip=i -B,--prefix=w -Y,--basename-prefix=w -z,--suffix=i"
	  " -r,--reject-file=w -D,--ifdef=i -F,--fuzz=i -g,--get=i"
	  " -V,--version-control=i --quoting-style=i --reject-format=i"
	  " --merge?i --read-only=i -*", "w,r", NULL, "unknown", GNU,
	  "patch --help" },
	/* -e gives the program: the operands are then its input files. */
	/* -l and -0 take only digits, -F only an attached pattern */
	{ "perl", "-v:exit -h:exit -e,-E=u:pattern -i?i:inplace -I=f -M=u -m=u -l -0"
	  " -F?i -V?i -x?c -d?u -D?i -C?i -S:unknown -*", "x,r*", NULL, NULL,
	  JH_CT_RUNS | JH_CT_POSIX, "perlrun(1)" },
	{ "pgrep", "-*", "i*", NULL, NULL, 0, "pgrep(1)" },
	{ "pip", "-V,--version -h,--help" PIP_G, "s", PIP_RUNS, NULL,
	  JH_CT_SUB | JH_CT_ABBREV, "pip --help" },
	/*
	 * cache purge|remove and uninstall delete outside the project
	 * (pip's cache, site-packages), where only pip knows: unknown.
	 */
	PIP("cache", "", "u*", NULL, 0, "pip cache --help"),
	PIP("check", "", "", NULL, 0, "pip check --help"),
	/* set writes pip.conf, which can name an index or a build. */
	PIP("config", "--editor=x", "u*", NULL, 0, "pip config --help"),
	PIP("download", PIP_I "-d,--dest,--destination-dir"
	    ",--destination-directory=w", "r*", "install,net",
	    JH_CT_RUNS, "pip download --help"),
	PIP("freeze", "-r,--requirement=r --path=r --exclude=i", "", NULL,
	    0, "pip freeze --help"),
	PIP("hash", "-a,--algorithm=i", "r*", NULL, 0, "pip hash --help"),
	PIP("help", "", "i*", NULL, 0, "pip help"),
	PIP("index", "-i,--index-url=n --extra-index-url=n", "i*", "net", 0,
	    "pip index --help"),
	PIP("inspect", "--path=r", "", NULL, 0, "pip inspect --help"),
	PIP("install", PIP_I "-t,--target=w --prefix=w --root=w", "r*",
	    "install,net", JH_CT_RUNS | JH_CT_INSTALL | JH_CT_NET,
	    "pip install --help"),
	PIP("list", "--format=i --path=r -i,--index-url=n"
	    " --extra-index-url=n -o,--outdated:net -u,--uptodate:net", "",
	    NULL, 0, "pip list --help"),
	PIP("show", "", "i*", NULL, 0, "pip show --help"),
	PIP("uninstall", "-r,--requirement=r", "u*", NULL, 0,
	    "pip uninstall --help"),
	PIP("wheel", PIP_I "-w,--wheel-dir=w", "r*", "install,net",
	    JH_CT_RUNS, "pip wheel --help"),
	{ "pip3", "-V,--version -h,--help" PIP_G, "s", PIP_RUNS, NULL,
	  JH_CT_SUB | JH_CT_ABBREV, "pip --help" },
	PIP3("cache", "", "u*", NULL, 0, "pip cache --help"),
	PIP3("check", "", "", NULL, 0, "pip check --help"),
	PIP3("config", "--editor=x", "u*", NULL, 0, "pip config --help"),
	PIP3("download", PIP_I "-d,--dest,--destination-dir"
	    ",--destination-directory=w", "r*", "install,net",
	    JH_CT_RUNS, "pip download --help"),
	PIP3("freeze", "-r,--requirement=r --path=r --exclude=i", "", NULL,
	    0, "pip freeze --help"),
	PIP3("hash", "-a,--algorithm=i", "r*", NULL, 0, "pip hash --help"),
	PIP3("help", "", "i*", NULL, 0, "pip help"),
	PIP3("index", "-i,--index-url=n --extra-index-url=n", "i*", "net",
	    0, "pip index --help"),
	PIP3("inspect", "--path=r", "", NULL, 0, "pip inspect --help"),
	PIP3("install", PIP_I "-t,--target=w --prefix=w --root=w", "r*",
	    "install,net", JH_CT_RUNS | JH_CT_INSTALL | JH_CT_NET,
	    "pip install --help"),
	PIP3("list", "--format=i --path=r -i,--index-url=n"
	    " --extra-index-url=n -o,--outdated:net -u,--uptodate:net", "",
	    NULL, 0, "pip list --help"),
	PIP3("show", "", "i*", NULL, 0, "pip show --help"),
	PIP3("uninstall", "-r,--requirement=r", "u*", NULL, 0,
	    "pip uninstall --help"),
	PIP3("wheel", PIP_I "-w,--wheel-dir=w", "r*", "install,net",
	    JH_CT_RUNS, "pip wheel --help"),
	{ "pkg-config", "--variable=i --define-variable=i --with-path=r -*",
	  "i*", NULL, NULL, JH_CT_ABBREV, "pkg-config --help" },
	{ "pkill", "-*", "u*", NULL, NULL, 0, "pkill(1)" },
	/* `pnpm SCRIPT' runs a script of package.json: effects.c reads
	 * package.json for a few names (script_shorthand), else unknown. */
	{ "pnpm", "-C,--dir=c --filter=i --filter-prod=i --workspace-root"
	  " --config.node-options=u -v,--version -h,--help -*", "s", NPM_RUNS,
	  NULL, JH_CT_RUNS | JH_CT_SUB, "pnpm --help" },
	PNPM("add", "--registry=n", "r*", "install,net", 0,
	    "pnpm add --help"),
	PNPM("audit", "--audit-level=i --fix:install", "", "net", 0,
	    "pnpm audit --help"),
	PNPM("create", "", "i,A*", "install,net", 0, "pnpm create --help"),
	PNPM("dlx", "--package=i -c,--shell-mode:unknown", "P", "install,net",
	    JH_CT_POSIX, "pnpm dlx --help"),
	PNPM("exec", "-c,--shell-mode:unknown", "P", NULL, JH_CT_POSIX,
	    "pnpm exec --help"),
	PNPM("fetch", "", "", "install,net", 0, "pnpm fetch --help"),
	PNPM("i", "--registry=n", "i*", "install,net", 0,
	    "pnpm install --help"),
	PNPM("install", "--registry=n", "i*", "install,net", 0,
	    "pnpm install --help"),
	PNPM("link", "", "r*", "install", 0, "pnpm link --help"),
	PNPM("list", "--depth=i", "i*", NULL, 0, "pnpm list --help"),
	PNPM("ls", "--depth=i", "i*", NULL, 0, "pnpm list --help"),
	PNPM("outdated", "", "i*", "net", 0, "pnpm outdated --help"),
	PNPM("prune", "", "", NULL, 0, "pnpm prune --help"),
	PNPM("publish", "--tag=i --access=i --otp=i", "r*", "net,remote", 0,
	    "pnpm publish --help"),
	PNPM("rebuild", "", "i*", "install", 0, "pnpm rebuild --help"),
	PNPM("remove", "", "i*", "install", 0, "pnpm remove --help"),
	PNPM("rm", "", "i*", "install", 0, "pnpm remove --help"),
	PNPM("run", "--:rest", "i,A*", NULL, 0, "pnpm run --help"),
	PNPM("start", "--:rest", "A*", NULL, 0, "pnpm start --help"),
	PNPM("store", "", "u*", NULL, 0, "pnpm store --help"),
	PNPM("t", "--:rest", "A*", NULL, 0, "pnpm test --help"),
	PNPM("test", "--:rest", "A*", NULL, 0, "pnpm test --help"),
	PNPM("uninstall", "", "i*", "install", 0, "pnpm remove --help"),
	PNPM("up", "", "i*", "install,net", 0, "pnpm update --help"),
	PNPM("update", "", "i*", "install,net", 0, "pnpm update --help"),
	PNPM("why", "", "i*", NULL, 0, "pnpm why --help"),
	{ "podman", DOCKER_G "--root=w --runroot=w --storage-opt=u"
	  " --hooks-dir=f --module=f --url=n --connection=i --identity=r"
	  " --cgroup-manager=i --conmon=x --runtime=x --network-cmd-path=x"
	  " --events-backend=i --tmpdir=w -v,--version -h,--help", "s",
	  DOCKER_RUNS, NULL, JH_CT_RUNS | JH_CT_SUB, "podman(1)" },
	PODMAN("build", "-f,--file=f -t,--tag=i --build-arg=i --target=i"
	    " --platform=i --secret=u --ssh=u -o,--output=u --iidfile=w"
	    " --cache-from=i --cache-to=u --network=i --label=i"
	    " --add-host=i --build-context=u -v,--volume=u -*", "r",
	    "net,recursive", 0, "podman-build(1)"),
	PODMAN("cp", "-a,--archive -*", "rw,rw", NULL, 0, "podman-cp(1)"),
	PODMAN("exec", "-e,--env=i --env-file=r -u,--user=i -w,--workdir=i"
	    " --privileged:unknown --detach-keys=i -*", "i,u*", NULL,
	    JH_CT_POSIX, "podman-exec(1)"),
	PODMAN("images", "-f,--filter=i --format=i -*", "i*", NULL, 0,
	    "podman-images(1)"),
	PODMAN("inspect", "-f,--format=i --type=i -*", "i*", NULL, 0,
	    "podman-inspect(1)"),
	PODMAN("logs", "--since=i --until=i -n,--tail=i -*", "i", NULL, 0,
	    "podman-logs(1)"),
	PODMAN("ps", "-f,--filter=i --format=i -n,--last=i -*", "", NULL, 0,
	    "podman-ps(1)"),
	PODMAN("pull", "--platform=i -*", "i", "net", 0, "podman-pull(1)"),
	PODMAN("push", "-*", "i*", "net", 0, "podman-push(1)"),
	PODMAN("rm", "-*", "u*", NULL, 0, "podman-rm(1)"),
	PODMAN("rmi", "-*", "u*", NULL, 0, "podman-rmi(1)"),
	PODMAN("run", DOCKER_RUN, "i,A*", "net", JH_CT_POSIX,
	    "podman-run(1)"),
	PODMAN("start", "--detach-keys=i -*", "i*", NULL, 0,
	    "podman-start(1)"),
	PODMAN("stop", "-t,--time=i -*", "i*", NULL, 0, "podman-stop(1)"),
	{ "poetry", "-C,--directory=c -P,--project=c -V,--version -h,--help"
	  " -q,--quiet -v,--verbose -n,--no-interaction --ansi --no-ansi"
	  " --no-plugins --no-cache", "s", "pyproject.toml,poetry.toml,"
	  "setup.py", NULL, JH_CT_RUNS | JH_CT_SUB, "poetry --help" },
	POETRY("add", "-G,--group=i -E,--extras=i --python=i --platform=i"
	    " --source=i", "i*", "install,net", 0, "poetry add --help"),
	POETRY("build", "-f,--format=i -o,--output=w", "", NULL, 0,
	    "poetry build --help"),
	POETRY("check", "", "", NULL, 0, "poetry check --help"),
	POETRY("config", "", "i,u*", NULL, 0, "poetry config --help"),
	POETRY("env", "", "u*", NULL, 0, "poetry env --help"),
	POETRY("export", "-f,--format=i -o,--output=w --with=i --without=i"
	    " --only=i -E,--extras=i", "", NULL, 0, "poetry export --help"),
	POETRY("init", "--name=i --description=i --author=i --python=i"
	    " --dependency=i --dev-dependency=i -l,--license=i", "", NULL, 0,
	    "poetry init --help"),
	POETRY("install", "--with=i --without=i --only=i -E,--extras=i", "",
	    "install,net", 0, "poetry install --help"),
	POETRY("lock", "", "", "net", 0, "poetry lock --help"),
	POETRY("new", "--name=i --readme=i", "w", NULL, 0,
	    "poetry new --help"),
	POETRY("publish", "-r,--repository=i -u,--username=i -p,--password=i"
	    " --cert=r --client-cert=r --dist-dir=r", "", "net,remote", 0,
	    "poetry publish --help"),
	POETRY("remove", "-G,--group=i", "i*", "install", 0,
	    "poetry remove --help"),
	POETRY("run", "", "P", NULL, JH_CT_POSIX, "poetry run --help"),
	POETRY("search", "", "i*", "net", 0, "poetry search --help"),
	POETRY("self", "", "u*", "install,net", 0, "poetry self --help"),
	POETRY("shell", "", "", "unknown", 0, "poetry shell --help"),
	POETRY("show", "--with=i --without=i --only=i -l,--latest:net"
	    " -o,--outdated:net", "i", NULL, 0, "poetry show --help"),
	POETRY("source", "", "i*", NULL, 0, "poetry source --help"),
	POETRY("sync", "--with=i --without=i --only=i -E,--extras=i", "",
	    "install,net", 0, "poetry sync --help"),
	POETRY("update", "--with=i --without=i --only=i", "i*",
	    "install,net", 0, "poetry update --help"),
	POETRY("version", "", "i", NULL, 0, "poetry version --help"),
	{ "prettier", "-w,--write:inplace --config=f --plugin=u --parser=i"
	  " --ignore-path=r --stdin-filepath=i --cache-location=w"
	  " --cache-strategy=i --log-level=i --print-width=i --tab-width=i"
	  " --trailing-comma=i --arrow-parens=i --end-of-line=i"
	  " --prose-wrap=i --quote-props=i --html-whitespace-sensitivity=i"
	  " --embedded-language-formatting=i --object-wrap=i"
	  " --experimental-operator-position=i --cursor-offset=i"
	  " --range-start=i --range-end=i --find-config-path=r"
	  " --file-info=r --config-precedence=i -*", "r*",
	  "prettier.config.js,prettier.config.mjs,prettier.config.cjs,"
	  "prettier.config.ts,.prettierrc,.prettierrc.js,.prettierrc.cjs,"
	  ".prettierrc.mjs,.prettierrc.json,.prettierrc.yaml,.prettierrc.yml,"
	  ".prettierrc.toml," NPM_RUNS, "recursive", JH_CT_RUNS,
	  "prettier --help" },
	{ "printenv", "-*", "i*", NULL, NULL, GNU, "printenv --help" },
	{ "printf", "-v=i -*", "i*", NULL, NULL, JH_CT_TEXT,
	  "printf(1), bash(1)" },
	{ "ps", "-o,-O,--format=i -p,--pid=i -u,-U,--user=i -g,-G,--group=i"
	  " -C=i -t,--tty=i -q=i --sort=i --ppid=i -*", "i*", NULL, NULL, 0,
	  "ps(1)" },
	/* -c and -f run SQL and backslash commands (\! runs a shell). */
	{ "psql", "-c,--command=u -f,--file=f -o,--output=w -L,--log-file=w"
	  " -d,--dbname=n -h,--host=n -p,--port=i -U,--username=i"
	  " -v,--set,--variable=i -P,--pset=i -F,--field-separator=i"
	  " -R,--record-separator=i -T,--table-attr=i -*", "n,i", NULL,
	  "net", JH_CT_RUNS | JH_CT_NET | GNU, "psql(1)" },
	{ "pwd", "-*", "", NULL, NULL, 0, "pwd(1), bash(1)" },
	/*
	 * --load-plugins imports modules and --init-hook runs Python; its
	 * configuration may say either.  -f FORMAT:FILE writes FILE.
	 */
	{ "pylint", "--rcfile=f --output=w --load-plugins=u --init-hook=u"
	  " -d,--disable=i -e,--enable=i -j,--jobs=i -f,--output-format=u"
	  " -r,--reports=i -s,--score=i --fail-under=i --fail-on=i"
	  " --ignore=i --ignore-patterns=i --ignore-paths=i --recursive=i"
	  " -E,--errors-only --exit-zero --py-version=i --disable-all"
	  " --max-line-length=i --msg-template=i --persistent=i"
	  " -v,--verbose --version:exit -h,--help:exit", "r*",
	  ".pylintrc,pylintrc,pyproject.toml,setup.cfg,tox.ini", "recursive",
	  JH_CT_RUNS | GNU, "pylint --help" },
	/*
	 * The test files it collects are imported, so operands are f;
	 * --basetemp is removed and made again.  -p NAME imports a plugin
	 * module from anywhere on the module path (-p no:NAME, which turns
	 * one off, is inert: lib/effects.c).
	 */
	{ "pytest", "-c,--config-file=f --rootdir=c --basetemp=d -p=u"
	  " --junitxml,--junit-xml=w --junit-prefix=i -k=i -m=i --maxfail=i"
	  " -n,--numprocesses=i --dist=i --tb=i --durations=i"
	  " --durations-min=i -r=i --capture=i --color=i --code-highlight=i"
	  " --confcutdir=r --ignore=i --ignore-glob=i --deselect=i"
	  " --import-mode=i --log-level=i --log-format=i --log-date-format=i"
	  " --log-cli-level=i --log-cli-format=i --log-cli-date-format=i"
	  " --log-file=w --log-file-level=i --log-file-format=i"
	  " --log-file-date-format=i --log-file-mode=i --cov=r"
	  " --cov-report=u --cov-config=f --cov-fail-under=i --cov-context=i"
	  " --doctest-glob=i -o,--override-ini=u --debug=w --pdbcls=u"
	  " -W,--pythonwarnings=i --html=w --json-report-file=w --timeout=i"
	  " --reruns=i --reruns-delay=i --randomly-seed=i --co,--collect-only"
	  " --pastebin=i:net --tx=u --rsyncdir=u -d:unknown -*", "f*",
	  "conftest.py,**/conftest.py,pytest.ini,.pytest.ini,pyproject.toml,"
	  "setup.cfg,tox.ini",
	  NULL, JH_CT_RUNS | GNU, "pytest --help" },
	/* -m MODULE ARGS is the command MODULE ARGS (python -m pytest is
	 * pytest).  With no script (or -) it runs its standard input. */
	{ "python", "-V,--version:exit -h,--help:exit -c=u:pattern -m=P -W=i"
	  " -X=u --check-hash-based-pycs=i -*", "x,A*", PY_RUNS, NULL,
	  JH_CT_RUNS | JH_CT_POSIX, "python3(1)" },
	{ "python3", "-V,--version:exit -h,--help:exit -c=u:pattern -m=P -W=i"
	  " -X=u --check-hash-based-pycs=i -i:unknown -*", "x,A*", PY_RUNS,
	  NULL, JH_CT_RUNS | JH_CT_POSIX, "python3(1)" },
	{ "readelf", "-x,--hex-dump=i -p,--string-dump=i"
	  " -R,--relocated-dump=i --dwarf-depth=i --dwarf-start=i --ctf=i"
	  " --ctf-parent=i --ctf-symbols=i --ctf-strings=i --sframe?i"
	  " --debug-dump?i -T,--silent-truncation -*", "r*", NULL, NULL, GNU,
	  "readelf --help" },
	{ "readlink", "-*", "r*", NULL, NULL, GNU, "readlink --help" },
	{ "realpath", "--relative-to=r --relative-base=r -*", "r*", NULL,
	  NULL, GNU, "realpath --help" },
	/* The operands are a command to the server (FLUSHALL, CONFIG SET
	 * dir, EVAL): unknown. */
	{ "redis-cli", "-h=n -p=i -s=r -a=i -u=n -n=i -r=i -i=i -d=i -D=i"
	  " --user=i --pass=i --rdb=w --functions-rdb=w --eval=f --tls"
	  " --cacert=r --cacertdir=r --cert=r --key=r --sni=i --pattern=i"
	  " --count=i --lru-test=i --intrinsic-latency=i --show-pushes=i"
	  " --pipe --raw --no-raw --csv --json --quoted-json --scan --bigkeys"
	  " --memkeys --hotkeys --stat --latency --latency-history"
	  " --latency-dist --replica --verbose --no-auth-warning --askpass"
	  " --insecure --version --help -x -c -e -2 -3", "u*", NULL, "net",
	  JH_CT_NET | JH_CT_NOCLUSTER, "redis-cli(1)" },
	{ "rev", "-*", "r*", NULL, NULL, JH_CT_FILTER, "rev(1)" },
	/* --pre runs a program on every file.  DEFAULT: with no path, the
	 * working directory. */
	{ "rg", "-e,--regexp=i:pattern -f,--file=r:pattern -g,--glob=i"
	  " --iglob=i -t,--type=i -T,--type-not=i --type-add=i --type-clear=i"
	  " -A,--after-context=i -B,--before-context=i -C,--context=i"
	  " -m,--max-count=i -d,--max-depth,--maxdepth=i --max-filesize=i"
	  " -j,--threads=i -M,--max-columns=i -E,--encoding=i --engine=i"
	  " --color=i --colors=i --context-separator=i"
	  " --field-context-separator=i --field-match-separator=i"
	  " --path-separator=i -r,--replace=i --sort=i --sortr=i"
	  " --ignore-file=r --pre=x --pre-glob=i --dfa-size-limit=i"
	  " --regex-size-limit=i --generate=i --hostname-bin=x -*", "i,r*",
	  NULL, "recursive", 0, "rg(1)" },
	{ "rm", "-r,-R,--recursive:recursive -d,--dir --interactive?i"
	  " --preserve-root?i -*", "d*", NULL, NULL, GNU, "rm --help" },
	{ "rmdir", "-*", "d*", NULL, NULL, GNU, "rmdir --help" },
	/*
	 * A HOST:PATH operand is remote; the rule reads it as a local path.
	 * The --delete family removes files under the destination.
	 */
	{ "rsync", "-e,--rsh=x --rsync-path=u -M,--remote-option=u"
	  " --delete,--del,--delete-before:delete"
	  " --delete-during,--delete-delay:delete"
	  " --delete-after,--delete-excluded,--remove-source-files:delete"
	  " --files-from=u --exclude-from=r --include-from=r -f,--filter=u"
	  " --exclude=i --include=i --backup-dir=w --partial-dir=w"
	  " -T,--temp-dir=w --compare-dest=r --copy-dest=r --link-dest=r"
	  " --log-file=w --write-batch=w --only-write-batch=w --read-batch=r"
	  " --password-file=r --chmod=i --chown=i --usermap=i --groupmap=i"
	  " --bwlimit=i --timeout=i --contimeout=i --port=i --sockopts=i"
	  " --max-size=i --min-size=i --max-delete=i -B,--block-size=i"
	  " --checksum-choice,--cc=i --compress-choice,--zc=i"
	  " --compress-level,--zl=i --skip-compress=i --modify-window=i"
	  " --out-format=i --log-file-format=i --info=i --debug=i --stderr=i"
	  " --outbuf=i --suffix=i --iconv=i --protocol=i --address=i"
	  " --config=f --daemon:unknown --checksum-seed=i --early-input=r"
	  " --copy-as=i --stop-after=i --stop-at=i --confine-root=r"
	  " --max-alloc=i --compress-threads,--zt=i"
	  " --delete-missing-args:delete -*", "r*,$w", NULL,
	  "net,recursive", JH_CT_NET, "rsync(1)" },
	{ "ruby", "-v,--version:exit -h,--help:exit -e=u:pattern -r=u -I=f -i?i:inplace -C=c -x?c"
	  " -E,--encoding=i -F?i -0 -W --disable=i --enable=i --dump=i"
	  " --external-encoding=i --internal-encoding=i -S:unknown -*", "x,r*",
	  NULL, NULL, JH_CT_RUNS | JH_CT_POSIX, "ruby(1)" },
	/* `ruff PATH' (before check was needed) is not listed: unknown. */
	{ "ruff", "-V,--version -h,--help --config=u --isolated -q,--quiet"
	  " -v,--verbose", "s", NULL, NULL, JH_CT_SUB, "ruff help" },
	{ "ruff analyze", "-*", "u*", NULL, NULL, 0, "ruff analyze --help" },
	{ "ruff check", "--fix:inplace --add-noqa:inplace --config=u"
	  " --select=i --ignore=i --extend-select=i --extend-ignore=i"
	  " --per-file-ignores=i --extend-per-file-ignores=i --exclude=i"
	  " --extend-exclude=i --target-version=i --line-length=i"
	  " --output-format=i -o,--output-file=w --cache-dir=w"
	  " --stdin-filename=i --fixable=i --unfixable=i"
	  " --extend-fixable=i --preview -*", "r*", NULL, "recursive", 0,
	  "ruff check --help" },
	{ "ruff clean", "-*", "", NULL, NULL, 0, "ruff clean --help" },
	{ "ruff config", "-*", "i", NULL, NULL, 0, "ruff config --help" },
	{ "ruff format", "--config=u --exclude=i --line-length=i"
	  " --target-version=i --cache-dir=w --stdin-filename=i --range=i -*",
	  "r*", NULL, "inplace,recursive", 0, "ruff format --help" },
	{ "ruff linter", "-*", "", NULL, NULL, 0, "ruff linter --help" },
	{ "ruff rule", "-*", "i*", NULL, NULL, 0, "ruff rule --help" },
	{ "ruff server", "-*", "", NULL, "unknown", 0, "ruff server --help" },
	{ "ruff version", "-*", "", NULL, NULL, 0, "ruff version --help" },
	/* --extern loads proc macros, which run; -C sets the linker.
	 * ATFILE: @FILE holds more options. */
	{ "rustc", "-o=w --out-dir=w --emit=u -L=r -l=i --extern=u"
	  " -C,--codegen=u -Z=u --crate-type=i --crate-name=i --edition=i"
	  " --target=i --cfg=i --check-cfg=i --cap-lints=i -A,--allow=i"
	  " -W,--warn=i -D,--deny=i -F,--forbid=i --force-warn=i -O -g --test"
	  " --print=u --explain=i --error-format=i --json=i --color=i"
	  " --sysroot=r --remap-path-prefix=i --diagnostic-width=i"
	  " -v,--verbose -V,--version -h,--help", "r*", NULL, NULL, 0,
	  "rustc --help" },
	{ "rustfmt", "--check --emit=i --backup --config-path=r --config=i"
	  " --edition=i --style-edition=i --color=i --print-config=u -*",
	  "r*", NULL, "inplace", JH_CT_FILTER, "rustfmt --help" },
	{ "rustup", "-v,--verbose -q,--quiet -h,--help -V,--version", "s",
	  "rust-toolchain.toml,rust-toolchain", NULL,
	  JH_CT_SUB | JH_CT_NET, "rustup --help" },
	{ "rustup check", "-*", "", NULL, "net", JH_CT_NET,
	  "rustup check --help" },
	/* component, target, toolchain: list only shows what is there */
	{ "rustup component", "--toolchain=i -*", "s", NULL, "install,net",
	  JH_CT_SUB, "rustup component --help" },
	{ "rustup component add", "--toolchain=i --target=i -*", "i*", NULL,
	  "install,net", JH_CT_NET, "rustup component --help" },
	{ "rustup component list", "--toolchain=i --installed -*", "", NULL,
	  NULL, 0, "rustup component --help" },
	{ "rustup component remove", "--toolchain=i --target=i -*", "i*",
	  NULL, "install", 0, "rustup component --help" },
	{ "rustup default", "-*", "i", NULL, "install,net", JH_CT_NET,
	  "rustup default --help" },
	{ "rustup doc", "--toolchain=i -*", "i*", NULL, "unknown", 0,
	  "rustup doc --help" },
	{ "rustup install", "--profile=i -c,--component=i -t,--target=i -*",
	  "i*", NULL, "install,net", JH_CT_NET, "rustup install --help" },
	{ "rustup override", "--path=r -*", "i*", NULL, NULL, 0,
	  "rustup override --help" },
	{ "rustup run", "--install", "i,P", NULL, NULL, JH_CT_POSIX,
	  "rustup run --help" },
	{ "rustup self", "-*", "i*", NULL, "install,net", JH_CT_NET,
	  "rustup self --help" },
	{ "rustup set", "-*", "i*", NULL, NULL, 0, "rustup set --help" },
	{ "rustup show", "-*", "i*", NULL, NULL, 0, "rustup show --help" },
	{ "rustup target", "--toolchain=i -*", "s", NULL, "install,net",
	  JH_CT_SUB, "rustup target --help" },
	{ "rustup target add", "--toolchain=i -*", "i*", NULL, "install,net",
	  JH_CT_NET, "rustup target --help" },
	{ "rustup target list", "--toolchain=i --installed -*", "", NULL,
	  NULL, 0, "rustup target --help" },
	{ "rustup target remove", "--toolchain=i -*", "i*", NULL, "install",
	  0, "rustup target --help" },
	{ "rustup toolchain", "-*", "s", NULL, "install,net", JH_CT_SUB,
	  "rustup toolchain --help" },
	{ "rustup toolchain install", "--profile=i -c,--component=i"
	  " -t,--target=i -*", "i*", NULL, "install,net", JH_CT_NET,
	  "rustup toolchain --help" },
	{ "rustup toolchain link", "-*", "i,r", NULL, "install", 0,
	  "rustup toolchain --help" },
	{ "rustup toolchain list", "-v,--verbose -*", "", NULL, NULL, 0,
	  "rustup toolchain --help" },
	{ "rustup toolchain uninstall", "-*", "i*", NULL, "install", 0,
	  "rustup toolchain --help" },
	{ "rustup update", "-*", "i*", NULL, "install,net", JH_CT_NET,
	  "rustup update --help" },
	{ "rustup which", "--toolchain=i -*", "i", NULL, NULL, 0,
	  "rustup which --help" },
	/* A HOST:PATH operand is remote; the rule reads it as a local
	 * path. */
	{ "scp", "-c=i -F=f -i=r -J=n -l=i -o=u -P=i -S=x -D=x -X=i -3 -4 -6"
	  " -A -B -C -O -p -q -R -r:recursive -s -T -v", "r*,$w", NULL, "net",
	  JH_CT_NET, "scp(1)" },
	/* SCRIPT: the interpreter checks sed scripts for e, w, W, r, R
	 * commands and the s///e and s///w flags. */
	{ "sed", "-e,--expression=i:pattern -f,--file=u:pattern"
	  " -i,--in-place?i:inplace -l,--line-length=i -*", "i,r*", NULL, NULL,
	  GFILT, "sed --help" },
	{ "seq", "-f,--format=i -s,--separator=i -*", "i*", NULL, NULL, GNU,
	  "seq --help" },
	{ "setsid", "-c,--ctty -f,--fork -w,--wait", "P", NULL, NULL,
	  JH_CT_WRAPPER | JH_CT_POSIX | GNU, "setsid(1)" },
	/* Its commands (or -b's) get and put any file. */
	{ "sftp", "-b=u -B=i -c=i -D=x -F=f -i=r -J=n -l=i -o=u -P=i -R=i"
	  " -S=x -s=u -X=i -*", "n*", NULL, "net,unknown", JH_CT_NET,
	  "sftp(1)" },
	SH_E("sh", "sh(1), dash(1), bash(1)"),
	SUM_E("sha1sum", "sha1sum --help"),
	SUM_E("sha224sum", "sha224sum --help"),
	SUM_E("sha256sum", "sha256sum --help"),
	SUM_E("sha384sum", "sha384sum --help"),
	SUM_E("sha512sum", "sha512sum --help"),
	{ "shuf", "-i,--input-range=i -n,--head-count=i -o,--output=w"
	  " --random-source=r -*", "r*", NULL, NULL, GFILT, "shuf --help" },
	{ "size", "--format=i --radix=i --target=i -*", "r*", NULL, NULL,
	  GNU, "size --help" },
	{ "sleep", "-*", "i*", NULL, NULL, GNU, "sleep --help" },
	{ "sort", "-o,--output=w -k,--key=i -t,--field-separator=i"
	  " -S,--buffer-size=i -T,--temporary-directory=w"
	  " --compress-program=x --files0-from=u --random-source=r"
	  " --batch-size=i --parallel=i --sort=i --check?i -*", "r*", NULL,
	  NULL, GFILT, "sort --help" },
	/* CWDWRITE: without PREFIX it writes xaa, xab, ... in the working
	 * directory. */
	{ "split", "-a,--suffix-length=i --additional-suffix=i -b,--bytes=i"
	  " -C,--line-bytes=i -d,--numeric-suffixes?i -x,--hex-suffixes?i"
	  " --filter=u -l,--lines=i -n,--number=i -t,--separator=i -*", "r,w",
	  NULL, "unknown", GNU, "split --help" },
	/* The SQL can ATTACH any file; dot-commands write (.output) and
	 * run (.shell, .system) unless -safe. */
	{ "sqlite3", "-init,--init=f -cmd,--cmd=u -separator,--separator=i"
	  " -newline,--newline=i -nullvalue,--nullvalue=i -mmap,--mmap=i"
	  " -vfs,--vfs=i -lookaside,--lookaside=i -pagecache,--pagecache=i"
	  " -heap,--heap=i -maxsize,--maxsize=i -escape,--escape=i"
	  " -nonce,--nonce=i -A=u -bail,--bail -batch,--batch -csv,--csv"
	  " -json,--json -line,--line -list,--list -html,--html"
	  " -header,--header -noheader,--noheader -readonly,--readonly"
	  " -safe,--safe -echo,--echo -column,--column -box,--box"
	  " -table,--table -markdown,--markdown -quote,--quote -tabs,--tabs"
	  " -ascii,--ascii -zip,--zip -deserialize,--deserialize"
	  " -append,--append -memtrace,--memtrace -stats,--stats"
	  " -version,--version:exit -help,--help:exit -nofollow,--nofollow"
	  " -interactive,--interactive", "w,u*", NULL, NULL,
	  JH_CT_RUNS | JH_CT_DASHLONG | JH_CT_NOCLUSTER, "sqlite3(1)" },
	/* The remote command runs on the host: unknown.  -o sets
	 * ProxyCommand, LocalCommand and the like. */
	{ "ssh", "-b=i -c=i -e=i -i=r -l=i -m=i -o=u -p=i -B=i -D=i -E=w -F=f"
	  " -I=u -J=n -L=i -O=i -Q=i -R=i -S=w -W=n -w=i -P=i -1 -2 -4 -6 -A"
	  " -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y",
	  "n,u*", NULL, "net", JH_CT_RUNS | JH_CT_NET | JH_CT_POSIX,
	  "ssh(1)" },
	{ "ssh-keygen", "-f=w -t=i -b=i -C=i -N=i -P=i -E=i -F=i -R=u -s=r"
	  " -I=i -n=i -V=i -Y=i -O=u -a=i -m=i -D=u -w=u -r=i -z=i -M=i -Z=i"
	  " -q -y -l -H -e -i -p -L -K -A -k -u -c -g -v -h -B -U", "rw*",
	  NULL, NULL, 0, "ssh-keygen(1)" },
	{ "stat", "-c,--format=i --printf=i --cached=i -*", "m*", NULL, NULL,
	  GNU, "stat --help" },
	{ "staticcheck", "-checks=i -f=i -fail=i -go=i -tags=i -tests?i"
	  " -matrix -merge -explain=i -show-ignored -debug.cpuprofile=w"
	  " -debug.memprofile=w -debug.trace=w -version -*", "i*", GO_RUNS,
	  NULL, JH_CT_RUNS | JH_CT_DASHLONG | JH_CT_NOCLUSTER,
	  "staticcheck -help" },
	{ "stdbuf", "-i,--input=i -o,--output=i -e,--error=i", "P", NULL,
	  NULL, JH_CT_WRAPPER | JH_CT_POSIX | GNU, "stdbuf --help" },
	/* -E sets the program's environment, -u runs it as another user. */
	{ "strace", "-o,--output=w -p,--attach=u -e=i -s,--string-limit=i"
	  " -f,--follow-forks -t -T -c -C -y -v -x -q -a=i -X=i -P=r"
	  " -E,--env=u -u,--user=u -b=i -I=i -O=i -S=i -D -k -n -Z -z", "P",
	  NULL, NULL, JH_CT_POSIX, "strace(1)" },
	/* Without -o it rewrites each file. */
	{ "strip", "-o=w -R,--remove-section=i -K,--keep-symbol=i"
	  " -N,--strip-symbol=i -F,--target=i -I,--input-target=i"
	  " -O,--output-target=i --plugin=x -*", "w*", NULL, NULL, GNU,
	  "strip --help" },
	{ "su", "-c,--command=u -s,--shell=x -g,--group=i"
	  " -G,--supp-group=i -w,--whitelist-environment=i"
	  " --session-command=u -*", "u*", NULL, "unknown", JH_CT_RUNS | GNU,
	  "su(1)" },
	/* -e edits as root, -s and -i start a shell. */
	{ "sudo", "-u,--user=i -g,--group=i -C,--close-from=i -D,--chdir=c"
	  " -h,--host?i -p,--prompt=i -r,--role=i -t,--type=i"
	  " -T,--command-timeout=i -U,--other-user=i -R,--chroot=u"
	  " -E,--preserve-env?i -H,--set-home -n,--non-interactive"
	  " -k,--reset-timestamp -K,--remove-timestamp -b,--background"
	  " -A,--askpass -S,--stdin -P,--preserve-groups -B,--bell -l,--list"
	  " -v,--validate -V,--version -e,--edit:unknown -s,--shell:unknown"
	  " -i,--login:unknown", "P", NULL, NULL, JH_CT_POSIX | GNU,
	  "sudo(8)" },
	{ "sync", "-*", "r*", NULL, NULL, GNU, "sync --help" },
	{ "tac", "-s,--separator=i -*", "r*", NULL, NULL, GFILT,
	  "tac --help" },
	{ "tail", "-n,--lines=i -c,--bytes=i -s,--sleep-interval=i --pid=i"
	  " --max-unchanged-stats=i --follow?i -*", "r*", NULL, NULL, GFILT,
	  "tail --help" },
	/*
	 * OLDSTYLE: `tar xzf A' puts the mode letters first, without a
	 * dash.  CWDWRITE: -x writes the members under -C or the working
	 * directory.  The archive is written or read (w); a name HOST:PATH
	 * is reached through rsh (rmt).  -C moves the names after it, not
	 * the archive (tar-1.34 "Changing the Working Directory"): OPSDIR.
	 */
	{ "tar", "-f,--file=w:rmt -C,--directory=c -T,--files-from=u"
	  " -X,--exclude-from=r --exclude=i -I,--use-compress-program=x"
	  " --to-command=x --rsh-command=x --rmt-command=x"
	  " -F,--info-script,--new-volume-script=x --checkpoint-action=u"
	  " -g,--listed-incremental=w -N,--newer,--after-date=r"
	  " --newer-mtime=i -b,--blocking-factor=i -L,--tape-length=i"
	  " --record-size=i -H,--format=i -V,--label=i --owner=i --group=i"
	  " --mode=i --mtime=r --strip-components=i --transform,--xform=i"
	  " --suffix=i --backup?i --index-file=w -K,--starting-file=i"
	  " --occurrence?i --quoting-style=i --sort=i --exclude-tag=i"
	  " --exclude-tag-all=i --exclude-tag-under=i --hole-detection=i"
	  " --warning=i --xattrs-include=i --xattrs-exclude=i"
	  " --atime-preserve?i --owner-map=r --group-map=r --pax-option=i"
	  " --volno-file=w --checkpoint?i --totals?i --one-top-level?i"
	  " --level=i --add-file=r --exclude-ignore=r"
	  " --exclude-ignore-recursive=r --quote-chars=i --no-quote-chars=i"
	  " --sparse-version=i --remove-files:delete"
	  " -x,--extract,--get:unknown -*",
	  "r*", NULL, "recursive", GNU | JH_CT_OPSDIR, "tar --help" },
	{ "tee", "--output-error?i -*", "w*", NULL, NULL, GFILT,
	  "tee --help" },
	{ "test", "-*", "r*", NULL, NULL, JH_CT_NOCLUSTER,
	  "test(1), bash(1)" },
	{ "time", "-p -o,--output=w -f,--format=i -a,--append -v,--verbose"
	  " -q,--quiet", "P", NULL, NULL, JH_CT_WRAPPER | JH_CT_POSIX,
	  "time(1), bash(1)" },
	{ "timeout", "-k,--kill-after=i -s,--signal=i -v,--verbose"
	  " --preserve-status --foreground", "i,P", NULL, NULL,
	  JH_CT_WRAPPER | JH_CT_POSIX | GNU, "timeout --help" },
	{ "top", "-d=i -n=i -p=i -u=i -U=i -o=i -w?i -E=i -e=i -*", "", NULL,
	  NULL, 0, "top(1)" },
	{ "touch", "-d,--date=i -r,--reference=r -t=i --time=i -*", "w*",
	  NULL, NULL, GNU, "touch --help" },
	/* `tox exec -- CMD' runs CMD in an environment: its words are A. */
	{ "tox", "-e=i -c,--conf=f --root=c --workdir=w -x,--override=u"
	  " --installpkg=r -p,--parallel?i -f,--factor=i -m,--labels=i"
	  " --discover=x --hashseed=i --result-json=w"
	  " --exit-and-dump-after=i --runner=i"
	  " --skip-missing-interpreters?i --:rest -*", "i,A*",
	  "tox.ini,pyproject.toml,setup.py,setup.cfg", "install,net",
	  JH_CT_RUNS | GNU, "tox --help" },
	{ "tr", "-*", "i*", NULL, NULL, JH_CT_FILTER | GNU, "tr --help" },
	/* -R with -H writes 00Tree.html in every directory. */
	{ "tree", "-o=w -L=i -P=i -I=i --filelimit=i --charset=i -H=i -T=i"
	  " --timefmt=i --sort=i -R:unknown -*", "r*", NULL, "recursive", 0,
	  "tree(1)" },
	{ "true", "-*", "i*", NULL, NULL, 0, "true(1)" },
	{ "truncate", "-r,--reference=r -s,--size=i -*", "w*", NULL, NULL,
	  GNU, "truncate --help" },
	/* It writes its outputs beside the sources or in outDir. */
	{ "tsc", "-p,--project=f --outDir=w --outFile=w --declarationDir=w"
	  " --rootDir=r --baseUrl=r --tsBuildInfoFile=w --generateTrace=w"
	  " --generateCpuProfile=w -t,--target=i -m,--module=i --lib=i"
	  " --jsx=i --moduleResolution=i --types=i --typeRoots=r --locale=i"
	  " -*", "r*", "tsconfig.json,**/tsconfig.json,tsconfig.*.json,"
	  NPM_RUNS, NULL, JH_CT_RUNS, "tsc --help" },
	{ "type", "-*", "i*", NULL, NULL, 0, "bash(1)" },
	{ "uname", "-*", "", NULL, NULL, GNU, "uname --help" },
	{ "uniq", "-f,--skip-fields=i -s,--skip-chars=i -w,--check-chars=i"
	  " --all-repeated?i --group?i -*", "r,w", NULL, NULL, GFILT,
	  "uniq --help" },
	/* python3 -m unittest [discover]: the project's tests, as pytest's */
	{ "unittest", "-v,--verbose -q,--quiet --locals -f,--failfast"
	  " -c,--catch -b,--buffer -k=i --durations=i -s,--start-directory=c"
	  " -p,--pattern=i -t,--top-level-directory=c -h,--help:exit -*", "f*",
	  NULL, NULL, JH_CT_RUNS, "python3 -m unittest -h" },
	ZIP_E("unxz", XZ_OPTS, "xz(1)"),
	/* CWDWRITE: without -d it extracts into the working directory. */
	{ "unzip", "-d=w -x=i -P=i -*", "r,i*", NULL, "unknown", 0,
	  "unzip(1)" },
	{ "uv", "-V,--version -h,--help -q,--quiet -v,--verbose --offline"
	  " --no-cache --native-tls --preview --no-config" UV_G, "s", UV_RUNS,
	  NULL, JH_CT_RUNS | JH_CT_SUB, "uv help" },
	UV("add", "-r,--requirements=r --branch=i --tag=i --rev=i --script=w"
	    " --bounds=i -m,--marker=i --optional=i", "r*", "install,net", 0,
	    "uv add --help"),
	UV("build", "-o,--out-dir=w", "r", "net", 0, "uv build --help"),
	UV("cache", "", "u*", NULL, 0, "uv cache --help"),
	UV("export", "-o,--output-file=w --format=i", "", "net", 0,
	    "uv export --help"),
	UV("init", "--name=i --build-backend=i --vcs=i", "w", NULL, 0,
	    "uv init --help"),
	UV("lock", "--script=r", "", "net", 0, "uv lock --help"),
	{ "uv pip", "-h,--help", "s", UV_RUNS, NULL, JH_CT_RUNS | JH_CT_SUB,
	  "uv pip --help" },
	UV("pip check", "", "", NULL, 0, "uv pip check --help"),
	UV("pip compile", "-o,--output-file=w -c,--constraints=r"
	    " --overrides=r", "r*", "net", 0, "uv pip compile --help"),
	UV("pip freeze", "", "", NULL, 0, "uv pip freeze --help"),
	UV("pip install", "-r,--requirements=r -c,--constraints=r"
	    " -e,--editable=f --target=w --prefix=w --overrides=r", "r*",
	    "install,net", 0, "uv pip install --help"),
	UV("pip list", "", "", NULL, 0, "uv pip list --help"),
	UV("pip show", "", "i*", NULL, 0, "uv pip show --help"),
	UV("pip sync", "-c,--constraints=r --target=w --prefix=w", "r*",
	    "install,net", 0, "uv pip sync --help"),
	UV("pip tree", "--depth=i --prune=i", "", NULL, 0,
	    "uv pip tree --help"),
	UV("pip uninstall", "-r,--requirements=r --target=w --prefix=w",
	    "i*", NULL, 0, "uv pip uninstall --help"),
	UV("publish", "--token=i -u,--username=i --password=i"
	    " --publish-url=n --trusted-publishing=i", "r*", "net,remote", 0,
	    "uv publish --help"),
	UV("python", "--install-dir=w", "i*", "install,net", 0,
	    "uv python --help"),
	UV("remove", "--script=w --optional=i", "i*", "install,net", 0,
	    "uv remove --help"),
	/* It syncs the environment first, then runs the command. */
	UV("run", "--with=i --with-editable=f --with-requirements=r"
	    " --env-file=f -m,--module=P --only-group=i --no-group=i --:end",
	    "P", "install,net", JH_CT_POSIX, "uv run --help"),
	UV("self", "", "i*", "install,net", 0, "uv self --help"),
	UV("sync", "--only-group=i --no-group=i --script=r", "",
	    "install,net", 0, "uv sync --help"),
	{ "uv tool", "-h,--help", "s", UV_RUNS, NULL, JH_CT_RUNS | JH_CT_SUB,
	  "uv tool --help" },
	UV("tool dir", "", "", NULL, 0, "uv tool dir --help"),
	UV("tool install", "--from=i --with=i --with-editable=f"
	    " --with-requirements=r", "i*", "install,net", 0,
	    "uv tool install --help"),
	UV("tool list", "", "", NULL, 0, "uv tool list --help"),
	UV("tool run", "--from=i --with=i --with-editable=f"
	    " --with-requirements=r", "P", "install,net", JH_CT_POSIX,
	    "uv tool run --help"),
	UV("tool uninstall", "", "i*", "install", 0,
	    "uv tool uninstall --help"),
	UV("tool upgrade", "", "i*", "install,net", 0,
	    "uv tool upgrade --help"),
	UV("tree", "--depth=i --prune=i", "", "net", 0, "uv tree --help"),
	UV("venv", "--prompt=i", "w", NULL, 0, "uv venv --help"),
	UV("version", "--bump=i", "i", NULL, 0, "uv version --help"),
	{ "uvx", "--from=i --with=i --with-editable=f --with-requirements=r"
	  UV_G, "P", UV_RUNS, "install,net", JH_CT_RUNS | JH_CT_POSIX,
	  "uvx --help" },
	/* Editors that can run anything; exrc files run where set. */
	/*
	 * The rest is the program it runs under the tool, decided on its
	 * own; the tools' output files are written.
	 */
	{ "valgrind", "--log-file=w --xml-file=w --log-socket=n --log-fd=i"
	  " --suppressions=r --gen-suppressions=i --vgdb-prefix=w --tool=i"
	  " --trace-children?i --extra-debuginfo-path=r"
	  " --default-suppressions=i --massif-out-file=w"
	  " --callgrind-out-file=w --cachegrind-out-file=w --dhat-out-file=w"
	  " --db-command=u --leak-check=i --show-leak-kinds=i"
	  " --errors-for-leak-kinds=i --show-reachable=i --track-origins=i"
	  " --error-exitcode=i --num-callers=i --track-fds=i"
	  " --undef-value-errors=i --keep-stacktraces=i --max-stackframe=i"
	  " --main-stacksize=i --fair-sched=i --child-silent-after-fork=i"
	  " --time-stamp=i --read-var-info=i --malloc-fill=i --free-fill=i"
	  " --expensive-definedness-checks=i --demangle=i -*", "P", NULL,
	  NULL, JH_CT_POSIX, "valgrind --help" },
	/* python3 -m venv DIR: a tree written (pip from its own wheel). */
	{ "venv", "--system-site-packages --symlinks --copies --clear"
	  " --upgrade --without-pip --prompt=i --upgrade-deps:install,net"
	  " --without-scm-ignore-files -*", "w*", NULL, "recursive", 0,
	  "python3 -m venv -h" },
	{ "vi", "-c=u -S=f -u=f -U=f -i=w -w=w -W=w -s=r -T=i -t=i -q=r -*",
	  "w*", ".exrc,.vimrc", "unknown", JH_CT_RUNS, "vim(1)" },
	{ "vim", "-c=u -S=f -u=f -U=f -i=w -w=w -W=w -s=r -T=i -t=i -q=r -*",
	  "w*", ".exrc,.vimrc", "unknown", JH_CT_RUNS, "vim(1)" },
	{ "vitest", "-c,--config=f -r,--root=c --dir=c -t,--testNamePattern=i"
	  " --reporter=f --outputFile=w --coverage.reportsDirectory=w"
	  " --environment=f --globalSetup=f --setupFiles=f --diff=f"
	  " --workspace=f --typecheck.checker=u --cache.dir=w"
	  " --pool=i --project=i --shard=i"
	  " --sequence.seed=i --testTimeout=i --hookTimeout=i --bail=i"
	  " --retry=i --mode=i --ui:unknown --open:unknown --api?i"
	  " --browser?u --inspect?i --inspect-brk?i --changed?i -*", "i*",
	  "vitest.config.ts,vitest.config.js,vitest.config.mts,"
	  "vitest.config.mjs,vite.config.ts,vite.config.js,vite.config.mts,"
	  "vite.config.mjs,vitest.workspace.ts,vitest.workspace.js,"
	  "vitest.config.cts,vitest.config.cjs," NPM_RUNS, NULL,
	  JH_CT_RUNS | JH_CT_CAMEL, "vitest --help" },
	/* The command runs every few seconds (through sh -c without -x). */
	{ "watch", "-n,--interval=i -d,--differences?i -q,--equexit=i"
	  " -s,--shotsdir=w -*", "u*", NULL, NULL, JH_CT_POSIX | GNU,
	  "watch(1)" },
	{ "wc", "--files0-from=u --total=i -*", "r*", NULL, NULL, GFILT,
	  "wc --help" },
	/* CWDWRITE: without -O it names the file from the URL, in the
	 * working directory or -P. */
	{ "wget", "-O,--output-document=w -o,--output-file=w"
	  " -a,--append-output=w -P,--directory-prefix=w -i,--input-file=u"
	  " -B,--base=n -e,--execute=u --config=u -t,--tries=i -T,--timeout=i"
	  " -w,--wait=i -U,--user-agent=i --header=i --post-data=i"
	  " --post-file=r --body-data=i --body-file=r --method=i --user=i"
	  " --password=i --load-cookies=r --save-cookies=w"
	  " --ca-certificate=r --certificate=r --private-key=r -l,--level=i"
	  " -A,--accept=i -R,--reject=i -D,--domains=i"
	  " -X,--exclude-directories=i -I,--include-directories=i"
	  " -Q,--quota=i --limit-rate=i --restrict-file-names=i"
	  " --default-page=i --progress=i --bind-address=i --use-askpass=x"
	  " --warc-file=w --rejected-log=w --hsts-file=w --accept-regex=i"
	  " --backups=i --ca-directory=r --certificate-type=i --ciphers=i"
	  " --compression=i --connect-timeout=i --crl-file=r --cut-dirs=i"
	  " --dns-timeout=i --exclude-domains=i --follow-tags=i"
	  " --ftp-password=i --ftp-user=i --http-password=i --http-user=i"
	  " --ignore-tags=i --local-encoding=i --pinnedpubkey=r"
	  " --prefer-family=i --private-key-type=i --proxy-password=i"
	  " --proxy-user=i --read-timeout=i --referer=i --regex-type=i"
	  " --reject-regex=i --remote-encoding=i --report-speed=i"
	  " --retry-on-http-error=i --secure-protocol=i --start-pos=i"
	  " --waitretry=i --warc-dedup=r --warc-header=i --warc-max-size=i"
	  " --warc-tempdir=w -*", "n*", NULL,
	  "net,unknown", JH_CT_NET | GNU, "wget(1)" },
	{ "which", "-*", "i*", NULL, NULL, 0, "which(1)" },
	{ "whoami", "-*", "", NULL, NULL, GNU, "whoami --help" },
	{ "xargs", "-0,--null -a,--arg-file=r -d,--delimiter=i -E=i"
	  " -e,--eof?i -I=i -i,--replace?i -L=i -l,--max-lines?i"
	  " -n,--max-args=i -P,--max-procs=i -s,--max-chars=i -o,--open-tty"
	  " -p,--interactive -r,--no-run-if-empty -t,--verbose -x,--exit"
	  " --process-slot-var=i --show-limits --help --version", "P", NULL,
	  NULL, JH_CT_WRAPPER | JH_CT_POSIX | GNU, "xargs --help" },
	{ "xdg-open", "-*", "u*", NULL, "unknown", JH_CT_RUNS, "xdg-open(1)" },
	{ "xxd", "-a,-autoskip -b,-bits -C,-capitalize -E,-EBCDIC -e"
	  " -h,-help -i,-include -p,-ps,-postscript,-plain -r,-revert -d"
	  " -u,-uppercase -v,-version -c,-cols=i -g,-groupsize=i -l,-len=i"
	  " -n,-name=i -o,-offset=i -s,-seek=i -R=i", "r,w", NULL, NULL,
	  JH_CT_FILTER | JH_CT_DASHLONG | JH_CT_NOCLUSTER, "xxd -h" },
	ZIP_E("xz", XZ_OPTS, "xz(1)"),
	{ "xzcat", "-T,--threads=i -M,--memlimit=i -*", "r*", NULL, NULL,
	  GFILT, "xz(1)" },
	/*
	 * `yarn' alone installs, so the entry is tagged install; `yarn
	 * SCRIPT' runs a script of package.json: effects.c reads
	 * package.json for a few names (script_shorthand), else unknown.
	 */
	{ "yarn", "--cwd=c -v,--version -h,--help", "s",
	  NPM_RUNS ",.yarnrc,.yarnrc.yml,.pnp.cjs,.yarn/**", "install,net",
	  JH_CT_RUNS | JH_CT_SUB, "yarn help" },
	YARN("add", "-D,--dev -P,--peer -O,--optional -E,--exact -T,--tilde",
	    "r*", "install,net", 0, "yarn add --help"),
	YARN("audit", "", "i*", "net", 0, "yarn audit --help"),
	YARN("bin", "", "i", NULL, 0, "yarn bin --help"),
	YARN("cache", "", "u*", NULL, 0, "yarn cache --help"),
	YARN("config", "", "i,u*", NULL, 0, "yarn config --help"),
	/* It runs the rules of yarn.config.cjs. */
	YARN("constraints", "--fix:inplace", "", NULL, 0,
	    "yarn constraints --help"),
	YARN("create", "", "i,A*", "install,net", 0, "yarn create --help"),
	YARN("dedupe", "", "i*", "install,net", 0, "yarn dedupe --help"),
	YARN("dlx", "-p,--package=i", "P", "install,net", JH_CT_POSIX,
	    "yarn dlx --help"),
	YARN("exec", "", "P", NULL, JH_CT_POSIX, "yarn exec --help"),
	YARN("global", "", "i,r*", "install,net", 0, "yarn global --help"),
	YARN("info", "", "i*", "net", 0, "yarn info --help"),
	YARN("init", "", "", NULL, 0, "yarn init --help"),
	YARN("install", "", "", "install,net", 0, "yarn install --help"),
	YARN("link", "", "r*", NULL, 0, "yarn link --help"),
	YARN("list", "--depth=i --pattern=i", "i*", NULL, 0,
	    "yarn list --help"),
	YARN("node", "", "x,A*", NULL, JH_CT_POSIX, "yarn node --help"),
	/* yarn npm publish, login, tag: the registry's own commands. */
	YARN("npm", "", "i*", "net,remote", 0, "yarn npm --help"),
	YARN("outdated", "", "i*", "net", 0, "yarn outdated --help"),
	YARN("pack", "-o,--out,--filename=w", "", NULL, 0,
	    "yarn pack --help"),
	YARN("plugin", "", "u*", "install,net", 0, "yarn plugin --help"),
	YARN("publish", "", "r*", "net,remote", 0, "yarn publish --help"),
	YARN("remove", "", "i*", "install", 0, "yarn remove --help"),
	YARN("run", "--:rest", "i,A*", NULL, 0, "yarn run --help"),
	YARN("set", "", "u*", "install,net", 0, "yarn set --help"),
	YARN("start", "--:rest", "A*", NULL, 0, "yarn start --help"),
	YARN("test", "--:rest", "A*", NULL, 0, "yarn test --help"),
	YARN("unlink", "", "i*", NULL, 0, "yarn unlink --help"),
	YARN("up", "", "i*", "install,net", 0, "yarn up --help"),
	YARN("upgrade", "", "i*", "install,net", 0, "yarn upgrade --help"),
	YARN("version", "", "i*", NULL, 0, "yarn version --help"),
	YARN("why", "", "i*", NULL, 0, "yarn why --help"),
	/* The rest is a yarn command line, run in that workspace. */
	YARN("workspace", "", "i,u*", NULL, 0, "yarn workspace --help"),
	YARN("workspaces", "", "u*", NULL, 0, "yarn workspaces --help"),
	{ "yes", "-*", "i*", NULL, NULL, GNU, "yes --help" },
	/* --arg NAME VALUE and the like take two words: see jq. */
	{ "yq", "-i,--in-place,--inplace:inplace -o,--output-format=i"
	  " -p,--input-format=i -I,--indent=i --from-file=u:pattern"
	  " --front-matter=i -s,--split-exp=u -w,--width=i --arg=i"
	  " --argjson=i --rawfile=i --slurpfile=i -*", "r*", NULL, NULL,
	  JH_CT_FILTER, "yq --help" },
	{ "zcat", "-*", "r*", NULL, NULL, GFILT, "gzip(1)" },
	/* ZIPFILE FILES...; -m removes the files it added. */
	{ "zip", "-r,--recurse-paths:recursive -R,--recurse-patterns:recursive"
	  " -q,--quiet -v,--verbose -j,--junk-paths -y,--symlinks"
	  " -X,--no-extra -D,--no-dir-entries -u,--update -f,--freshen"
	  " -F,--fix -FF,--fixfix -T,--test -m,--move:delete -d,--delete"
	  " -x,--exclude=i -i,--include=i -O,--output-file=w -b,--temp-path=w"
	  " -P,--password=i -e,--encrypt -Z,--compression-method=i"
	  " -n,--suffixes=i -t,--from-date=i -tt,--before-date=i"
	  " -TT,--unzip-command=x -0 -1 -2 -3 -4 -5 -6 -7 -8 -9"
	  " -l,--to-crlf -ll,--from-crlf -o,--latest-time -g,--grow"
	  " -A,--adjust-sfx -J,--junk-sfx -k,--DOS-names -S,--system-hidden"
	  " -h,--help -z,--archive-comment -c,--entry-comments"
	  " -s,--split-size=i -sp,--split-pause -sb,--split-bell"
	  " -sv,--split-verbose -sf,--show-files -MM,--must-match"
	  " -nw,--no-wild -ws,--wild-stop-dirs -lf,--logfile-path=w"
	  " -la,--log-append -li,--log-info", "w,r*", NULL, NULL,
	  JH_CT_DASHLONG, "zip(1)" },
	{ "zsh", "-c:unknown -i:unknown -s:unknown -o=i --emulate=i -*",
	  "x,A*", NULL, NULL, JH_CT_RUNS | JH_CT_POSIX,
	  "zsh(1)" },
};

const unsigned long jh_ncmdtab = sizeof(jh_cmdtab) / sizeof(jh_cmdtab[0]);

/*
 * The lint.  Every entry is checked against the grammar of cmdtab.h, so
 * that a typo in the table is a failed test, not an option the
 * interpreter silently reads another way.
 */

#define CT_VALUES	"rmwdxfcinPuA"	/* an option value's letters: not s */
#define CT_OPERANDS	"rmwdxfcinsPuA"	/* letters an operand rule may take */
#define CT_FLAGS	(JH_CT_RUNS | JH_CT_SUB | JH_CT_POSIX | JH_CT_ABBREV | \
	JH_CT_DASHLONG | JH_CT_NOCLUSTER | JH_CT_NET | JH_CT_INSTALL | \
	JH_CT_WRAPPER | JH_CT_FILTER | JH_CT_FINDEXPR | JH_CT_OPSDIR | \
	JH_CT_CAMEL | JH_CT_TEXT)

static const char *const ct_tags[] = { "destroy", "rewrite", "remote",
	"force", "net", "install", "exec", "recursive", "inplace", "delete",
	"pattern", "target", "end", "rest", "unknown", "exit", "keep", "rmt",
	"symbolic", NULL };

static int
ct_fail(char *why, size_t whysz, const struct jh_cmddef *d, const char *fmt,
    const char *arg, size_t len)
{
	char msg[160];

	snprintf(msg, sizeof(msg), fmt, (int)len, arg);
	snprintf(why, whysz, "%s: %s", d->name != NULL ? d->name : "(null)",
	    msg);
	return (-1);
}

/* Whether s[0..n) is a tag of the list. */
static int
ct_istag(const char *s, size_t n)
{
	size_t i;

	for (i = 0; ct_tags[i] != NULL; i++)
		if (strlen(ct_tags[i]) == n && strncmp(ct_tags[i], s, n) == 0)
			return (1);
	return (0);
}

/* Checks a comma-separated list of tags, s[0..n); 0 or -1. */
static int
ct_taglist(const char *s, size_t n, const char **bad, size_t *badn)
{
	size_t i, j;

	for (i = 0; i <= n; i = j + 1) {
		for (j = i; j < n && s[j] != ','; j++)
			;
		if (!ct_istag(s + i, j - i)) {
			*bad = s + i;
			*badn = j - i;
			return (-1);
		}
	}
	return (0);
}

/*
 * Whether s[0..n) is one option name: -x, --long, -long (dashlong entries
 * only), or "--" itself.
 */
static int
ct_optname(const char *s, size_t n, unsigned flags)
{
	size_t i, k;

	if (n < 2 || s[0] != '-')
		return (0);
	if (n == 2)
		return (s[1] == '-' || isalnum((unsigned char)s[1]));
	k = s[1] == '-' ? 2 : 1;
	if (k == 1 && !(flags & JH_CT_DASHLONG))
		return (0);
	if (!isalnum((unsigned char)s[k]))
		return (0);
	for (i = k + 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("-_.+", s[i]) ==
		    NULL)
			return (0);
	return (1);
}

/* Checks one entry's option specs. */
static int
ct_opts(const struct jh_cmddef *d, char *why, size_t whysz)
{
	const char *names[512], *s, *e, *p, *q, *bad;
	size_t lens[512], nn = 0, i, j, badn;
	int star = 0;
	char val;

	if (d->opts == NULL)
		return (0);
	for (s = d->opts; *s != '\0'; s = e) {
		if (*s == ' ') {
			e = s + 1;
			continue;
		}
		for (e = s; *e != '\0' && *e != ' '; e++)
			;
		if (e - s == 2 && strncmp(s, "-*", 2) == 0) {
			if (star++)
				return (ct_fail(why, whysz, d,
				    "-* listed twice%.*s", "", 0));
			continue;
		}
		for (p = s; p < e && *p != '=' && *p != '?' && *p != ':'; p++)
			;
		/* the names, each checked and remembered */
		for (q = s; q <= p; q = q + 1) {
			const char *c = q;

			while (q < p && *q != ',')
				q++;
			if (!ct_optname(c, (size_t)(q - c), d->flags))
				return (ct_fail(why, whysz, d,
				    "bad option name \"%.*s\"", c,
				    (size_t)(q - c)));
			for (i = 0; i < nn; i++)
				if (lens[i] == (size_t)(q - c) &&
				    strncmp(names[i], c, lens[i]) == 0)
					return (ct_fail(why, whysz, d,
					    "option %.*s listed twice", c,
					    lens[i]));
			if (nn == sizeof(names) / sizeof(names[0]))
				return (ct_fail(why, whysz, d,
				    "too many options%.*s", "", 0));
			names[nn] = c;
			lens[nn++] = (size_t)(q - c);
		}
		val = 0;
		if (p < e && (*p == '=' || *p == '?')) {
			if (p + 1 == e || strchr(CT_VALUES, p[1]) == NULL ||
			    p[1] == '\0')
				return (ct_fail(why, whysz, d,
				    "bad value effect in \"%.*s\"", s,
				    (size_t)(e - s)));
			val = p[1];
			p += 2;
			/* =EF: a second value word (jq --rawfile NAME FILE) */
			if (val != '?' && p < e && *p != ':' &&
			    s[p - s - 2] == '=') {
				if (strchr(CT_VALUES, *p) == NULL ||
				    *p == 'P' || val == 'P')
					return (ct_fail(why, whysz, d,
					    "bad second value effect in "
					    "\"%.*s\"", s, (size_t)(e - s)));
				p++;
			}
		}
		if (p < e && *p != ':')
			return (ct_fail(why, whysz, d,
			    "junk after the value in \"%.*s\"", s,
			    (size_t)(e - s)));
		if (p < e) {
			if (ct_taglist(p + 1, (size_t)(e - p - 1), &bad,
			    &badn) == -1)
				return (ct_fail(why, whysz, d,
				    "bad tag \"%.*s\"", bad, badn));
			for (q = p + 1; q < e; q = q + j + 1) {
				for (j = 0; q + j < e && q[j] != ','; j++)
					;
				if (j == 6 && strncmp(q, "target", 6) == 0 &&
				    val != 'w' && val != 'c')
					return (ct_fail(why, whysz, d,
					    "target without =w or =c in "
					    "\"%.*s\"", s, (size_t)(e - s)));
			}
		}
	}
	return (0);
}

/* Checks one entry's operand rules. */
static int
ct_args(const struct jh_cmddef *d, char *why, size_t whysz)
{
	const char *s, *e, *p;
	int star = 0, last = 0, first = 1, sub = 0;

	if (d->args == NULL)
		return (ct_fail(why, whysz, d, "no operand rules%.*s", "", 0));
	for (s = d->args; *s != '\0'; s = *e == ',' ? e + 1 : e, first = 0) {
		for (e = s; *e != '\0' && *e != ','; e++)
			;
		if (last)
			return (ct_fail(why, whysz, d,
			    "a rule after the last one: \"%.*s\"", s,
			    (size_t)(e - s)));
		p = s;
		if (*p == '$') {
			p++;
			last = 1;
		}
		if (p == e || (e[-1] == '*' && p == e - 1))
			return (ct_fail(why, whysz, d, "empty rule in \"%.*s\"",
			    d->args, strlen(d->args)));
		if (star && !last)
			return (ct_fail(why, whysz, d,
			    "a rule after a * rule: \"%.*s\"", s,
			    (size_t)(e - s)));
		if (e[-1] == '*') {
			if (last)
				return (ct_fail(why, whysz, d,
				    "$ and * in one rule: \"%.*s\"", s,
				    (size_t)(e - s)));
			star = 1;
		}
		for (; p < e && *p != '*'; p++) {
			if (strchr(CT_OPERANDS, *p) == NULL || *p == '\0')
				return (ct_fail(why, whysz, d,
				    "bad operand effect in \"%.*s\"", s,
				    (size_t)(e - s)));
			if (*p == 's') {
				if (!first || e - s != 1)
					return (ct_fail(why, whysz, d,
					    "s not alone in the first rule%.*s",
					    "", 0));
				sub = 1;
			}
			if (*p == 'P') {
				if (e - s != 1 || *e != '\0')
					return (ct_fail(why, whysz, d,
					    "P not alone in the last rule%.*s",
					    "", 0));
			}
		}
		if (*e == ',' && e[1] == '\0')
			return (ct_fail(why, whysz, d, "trailing comma%.*s", "",
			    0));
	}
	if (sub != ((d->flags & JH_CT_SUB) != 0))
		return (ct_fail(why, whysz, d,
		    "JH_CT_SUB and the rule s go together%.*s", "", 0));
	return (0);
}

int
jh_cmdtab_check(char *why, size_t whysz)
{
	const struct jh_cmddef *d, *parent;
	const char *s, *bad;
	size_t badn, n;
	unsigned long i, j;

	for (i = 0; i < jh_ncmdtab; i++) {
		d = &jh_cmdtab[i];
		s = d->name;
		if (s == NULL || *s == '\0' || *s == ' ' ||
		    s[strlen(s) - 1] == ' ' || strstr(s, "  ") != NULL)
			return (ct_fail(why, whysz, d, "bad name%.*s", "", 0));
		if (i > 0 && strcmp(jh_cmdtab[i - 1].name, s) >= 0)
			return (ct_fail(why, whysz, d,
			    "not after \"%.*s\" in strcmp order",
			    jh_cmdtab[i - 1].name,
			    strlen(jh_cmdtab[i - 1].name)));
		if (strrchr(s, ' ') != NULL) {
			n = (size_t)(strrchr(s, ' ') - s);
			parent = NULL;
			for (j = 0; j < i; j++)
				if (strlen(jh_cmdtab[j].name) == n &&
				    strncmp(jh_cmdtab[j].name, s, n) == 0)
					parent = &jh_cmdtab[j];
			if (parent == NULL)
				return (ct_fail(why, whysz, d,
				    "no entry \"%.*s\"", s, n));
			if (!(parent->flags & JH_CT_SUB))
				return (ct_fail(why, whysz, d,
				    "\"%.*s\" has no JH_CT_SUB", s, n));
		}
		if (d->flags & ~(unsigned)CT_FLAGS)
			return (ct_fail(why, whysz, d, "unknown flags%.*s", "",
			    0));
		if (d->src == NULL || *d->src == '\0')
			return (ct_fail(why, whysz, d, "no src%.*s", "", 0));
		if (d->tags != NULL && ct_taglist(d->tags, strlen(d->tags),
		    &bad, &badn) == -1)
			return (ct_fail(why, whysz, d, "bad entry tag \"%.*s\"",
			    bad, badn));
		if (d->runs != NULL && (*d->runs == '\0' ||
		    strstr(d->runs, ",,") != NULL || strchr(d->runs, ' ') !=
		    NULL || *d->runs == ',' ||
		    d->runs[strlen(d->runs) - 1] == ','))
			return (ct_fail(why, whysz, d, "bad runs \"%.*s\"",
			    d->runs, strlen(d->runs)));
		if (ct_opts(d, why, whysz) == -1 || ct_args(d, why, whysz) ==
		    -1)
			return (-1);
	}
	return (0);
}
