# shellcheck shell=bash
# The one shell library of Strata's scripts: log(), as_root(), and the supervision of a daemon
# through its pid file (start, liveness, stop), with the log rotation and the JVM options of a
# daemon started from bin/. Sourced by bin/strata-env.sh (so by every script of bin/), and from
# the source tree by ./strata and dev-support/softroce-test. No side effects when sourced (no
# Java needed), so tests and other scripts can source it alone.

# log MESSAGE...: one line on stderr, "[TAG] MESSAGE", TAG being $STRATA_LOG_TAG when set, else
# the running script's name (strata, strata-cluster, satisfier, ...).
log() { printf '[%s] %s\n' "${STRATA_LOG_TAG:-${0##*/}}" "$*" >&2; }

# as_root COMMAND...: runs COMMAND as root: directly when this is root, else through sudo; fails
# saying so where neither is possible.
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    log "need root to run: $*"; return 1; fi
}

# A pid file's identity: its absolute physical path. Every daemon started from bin/ carries it
# on its command line as -Dstrata.pid.file=ID, so a pid read back from the file is trusted only
# while that process is still the daemon that file belongs to: after a crash the number may be
# reused by any process (a reboot, pid wrap-around), and `kill -0` alone would take it for the
# daemon, report it running, and signal it on stop or kill.
strata_pid_file_id() {
  local dir
  dir=$(cd "$(dirname -- "$1")" 2>/dev/null && pwd -P) || return 1
  printf '%s/%s' "$dir" "$(basename -- "$1")"
}

# strata_pid_is_daemon PID PIDFILE: true while process PID runs with PIDFILE's marker on its
# command line (/proc/PID/cmdline; ps where there is no /proc). A zombie has an empty command
# line: it counts as gone.
strata_pid_is_daemon() {
  local pid="$1" id arg
  [[ "$pid" =~ ^[1-9][0-9]*$ ]] || return 1
  id=$(strata_pid_file_id "$2") || return 1
  if [ -d /proc/self ]; then
    [ -r "/proc/$pid/cmdline" ] || return 1
    while IFS= read -r -d '' arg; do
      if [ "$arg" = "-Dstrata.pid.file=$id" ]; then return 0; fi
    done <"/proc/$pid/cmdline" 2>/dev/null
    return 1
  fi
  case " $(ps -o args= -p "$pid" 2>/dev/null) " in
    *" -Dstrata.pid.file=$id "*) return 0 ;;
    *) return 1 ;;
  esac
}

# strata_daemon_pid PIDFILE: prints the pid PIDFILE holds and succeeds when that process is the
# daemon the file belongs to; prints nothing and fails when there is no file, no such process,
# or the pid now belongs to another process.
strata_daemon_pid() {
  local pid=""
  [ -f "$1" ] || return 1
  read -r pid <"$1" 2>/dev/null || [ -n "$pid" ] || return 1
  strata_pid_is_daemon "$pid" "$1" || return 1
  printf '%s\n' "$pid"
}

# strata_pid_gone PID PIDFILE: true when process PID, PIDFILE's daemon a moment ago, has gone:
# no such process, or the pid is now another process's. An exiting process (its command line
# already empty, a zombie not yet reaped) still holds its pid, which no other process can take
# until then: it is not gone yet.
strata_pid_gone() {
  local pid="$1" cmdline
  kill -0 "$pid" 2>/dev/null || return 0
  strata_pid_is_daemon "$pid" "$2" && return 1
  [ -d /proc/self ] || return 0
  # stderr first: a process gone since kill -0 makes the < redirection itself fail.
  cmdline=$(tr -d '\0' 2>/dev/null <"/proc/$pid/cmdline") || return 0
  [ -n "$cmdline" ]
}

# strata_wait_gone PID PIDFILE SECONDS: waits until PID, PIDFILE's daemon, has gone (exited and
# been reaped); fails when it has not after SECONDS.
strata_wait_gone() {
  local pid="$1" file="$2" i
  for ((i = 0; i < $3 * 4; i++)); do
    strata_pid_gone "$pid" "$file" && return 0
    sleep 0.25
  done
  strata_pid_gone "$pid" "$file"
}

# strata_wait_started PID PIDFILE SECONDS: waits until a just-started PID carries its marker (it
# is a launcher, nohup or `ip netns exec`, for a moment before it execs the JVM); fails when it
# exits first or does not within SECONDS.
strata_wait_started() {
  local pid="$1" file="$2" i
  for ((i = 0; i < $3 * 10; i++)); do
    strata_pid_is_daemon "$pid" "$file" && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  strata_pid_is_daemon "$pid" "$file"
}

# strata_close_inherited_fds: closes every descriptor of this shell above 2 (where /proc lists
# them; elsewhere none is closed).
strata_close_inherited_fds() {
  local fd
  [ -d "/proc/$BASHPID/fd" ] || return 0
  for fd in "/proc/$BASHPID/fd"/*; do
    fd=${fd##*/}
    [[ "$fd" =~ ^[0-9]+$ ]] && [ "$fd" -gt 2 ] || continue
    eval "exec $fd>&-" 2>/dev/null || true
  done
}

# strata_start_background PIDFILE OUTFILE COMMAND...: starts COMMAND as a daemon, detached
# (nohup, standard input /dev/null, stdout and stderr into OUTFILE, rotated first keeping five
# earlier captures), writes its pid into PIDFILE and sets STRATA_STARTED_PID to it. COMMAND must
# end up (it may exec through env, ip netns exec, a bin/ script) as the process that carries
# PIDFILE's marker (strata_daemon_opts): succeeds once it does, fails when it exits first or does
# not within 30 s.
strata_start_background() {
  local pid_file="$1" out_file="$2"; shift 2
  strata_rotate "$out_file" 5
  # The daemon keeps standard input, output and error only: any other descriptor its starter
  # holds would stay open as long as the daemon lives. A lock its starter took (`flock LOCK
  # strata-cluster up`) was held by the cluster's daemons until they ended, so the
  # `flock LOCK strata-cluster down` meant to end them waited for ever.
  (strata_close_inherited_fds; exec nohup "$@" >"$out_file" 2>&1 </dev/null) &
  STRATA_STARTED_PID=$!
  echo "$STRATA_STARTED_PID" >"$pid_file"
  strata_wait_started "$STRATA_STARTED_PID" "$pid_file" 30
}

# strata_await_stop NAME PID PIDFILE SECONDS: PID, PIDFILE's daemon NAME, has been sent TERM:
# waits up to SECONDS for it to be gone; past that, says so and sends KILL. Removes PIDFILE once
# the process has gone; fails (leaving PIDFILE) when it is still there 10 s after KILL (a process
# stuck in the kernel, which no signal ends).
strata_await_stop() {
  local name="$1" pid="$2" pid_file="$3" seconds="$4"
  if ! strata_wait_gone "$pid" "$pid_file" "$seconds"; then
    log "$name (pid $pid) did not stop within $seconds s of TERM: killing it"
    kill -9 "$pid" 2>/dev/null || true
    if ! strata_wait_gone "$pid" "$pid_file" 10; then
      log "$name (pid $pid) is still there 10 s after KILL: pid file $pid_file kept"
      return 1
    fi
  fi
  rm -f "$pid_file"
}

# strata_stop_pid NAME PID PIDFILE SECONDS: TERM to PID, PIDFILE's daemon NAME, then as
# strata_await_stop (KILL after SECONDS).
strata_stop_pid() {
  kill "$2" 2>/dev/null || true
  strata_await_stop "$@"
}

# strata_rotate FILE [KEEP]: FILE becomes FILE.1, FILE.1 becomes FILE.2 ..., keeping KEEP
# (default 5) old copies: a daemon's stdout/stderr capture at each start.
strata_rotate() {
  local f="$1" keep="${2:-5}" i
  [ -e "$f" ] || return 0
  for ((i = keep - 1; i >= 1; i--)); do
    if [ -e "$f.$i" ]; then mv -f "$f.$i" "$f.$((i + 1))"; fi
  done
  mv -f "$f" "$f.1"
}

# strata_rotate_if_over FILE BYTES [KEEP]: rotates FILE when it is larger than BYTES.
strata_rotate_if_over() {
  local size
  [ -f "$1" ] || return 0
  size=$(wc -c <"$1" 2>/dev/null || echo 0)
  if [ "$size" -gt "$2" ]; then strata_rotate "$1" "${3:-5}"; fi
}

# Size caps of a daemon's log4j log (conf/log4j.properties' RollingFileAppender): at most
# (1 + backups) files of the size each, per daemon.
STRATA_LOG_MAX_SIZE="${STRATA_LOG_MAX_SIZE:-64MB}"
STRATA_LOG_BACKUPS="${STRATA_LOG_BACKUPS:-5}"

# strata_daemon_opts NAME PIDFILE LOGDIR: sets the array STRATA_DAEMON_OPTS to the JVM options
# of a daemon started from bin/: its marker (name and pid file), its size-capped rolling log
# LOGDIR/NAME.log, its GC log (LOGDIR/NAME-gc.log, 5 x 20 MB), its crash file in LOGDIR, and an
# exit on OutOfMemoryError (a daemon that has run out of heap is in an unknown state: it exits,
# so that its supervisor or operator restarts it, instead of limping on).
strata_daemon_opts() {
  local name="$1" id logs="$3"
  id=$(strata_pid_file_id "$2") || { echo "strata: no directory for pid file $2" >&2; return 1; }
  logs=$(cd "$logs" && pwd -P) || { echo "strata: no log directory $3" >&2; return 1; }
  STRATA_DAEMON_OPTS=(
    -Dstrata.daemon="$name" -Dstrata.pid.file="$id"
    -Dstrata.root.logger=INFO,RFA -Dstrata.log.file="$logs/$name.log"
    -Dstrata.log.maxfilesize="$STRATA_LOG_MAX_SIZE"
    -Dstrata.log.maxbackupindex="$STRATA_LOG_BACKUPS"
    -XX:+ExitOnOutOfMemoryError
    -XX:ErrorFile="$logs/$name-hs_err_pid%p.log"
    "-Xlog:gc*:file=\"$logs/$name-gc.log\":time,uptime:filecount=5,filesize=20M"
  )
}
