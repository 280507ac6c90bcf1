# Sourced by bin/strata-cluster (and by its tests): storage media emulated at the block layer.
#
# An emulated volume is an ext4 file system on its own loop device over a sparse backing file,
# mounted at the volume's directory, and throttled in the root blkio cgroup (cgroup v1:
# blkio.throttle.{read,write}_{bps,iops}_device): the DataNode's reads and writes, the page
# cache's writeback included, reach the "device" at the profile's rates, while reads the page
# cache holds cost nothing, as on a real machine. Every volume set up is recorded in a state file
# (one line: mount point, backing file, loop device, MAJ:MIN), so that media_down undoes exactly
# that: throttle lines, mounts and loop devices, and nothing else. The backing files stay (their
# data survives down and up).
#
# The caller may define log(); media_* functions report through it.
#
# Functions, one concern each:
#   media_profile_load FILE           the profile (key=value) into MEDIA_PROFILE[KIND.KEY]
#   media_size_override KIND=N        --volume-gb: a kind's size in GiB
#   media_preflight                   can this machine do it? else MEDIA_REFUSED says why
#   media_shared_root STATE ROOT      the shared mount the volumes are mounted under
#   media_volume_up STATE MNT BACKING KIND   attach (or reuse), mkfs when new, mount, throttle
#   media_volume_down MNT BACKING DEV MAJMIN unthrottle, unmount, detach what is still ours
#   media_down STATE                  media_volume_down for every volume STATE records
#   media_throttle MAJMIN RBPS WBPS RIOPS WIOPS / media_unthrottle MAJMIN
#   media_leftovers STATE             what of STATE is still mounted, attached or throttled
#   media_probe MNT KIND OUT          fio through one volume: seq write MB/s, rand 4 KiB IOPS

MEDIA_BLKIO="${MEDIA_BLKIO:-/sys/fs/cgroup/blkio}"
MEDIA_KINDS="ssd disk archive"
MEDIA_KEYS="read.mbps write.mbps read.iops write.iops size.gb delay.us"
declare -gA MEDIA_PROFILE=()
MEDIA_REFUSED=""
MEDIA_MOUNT_OPTIONS="noatime,errors=remount-ro"

media_log() { if declare -F log >/dev/null; then log "$@"; else printf '[strata-media] %s\n' "$*" >&2; fi; }

# The profile: every KIND.KEY of MEDIA_KINDS x MEDIA_KEYS, a positive whole number; anything
# else in the file (but comments and blank lines) is an error naming the line.
media_profile_load() {
  local file="$1" line key value n=0
  [ -r "$file" ] || { echo "strata-media: no media profile $file" >&2; return 2; }
  MEDIA_PROFILE=()
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line="${line%%#*}"; line="$(printf '%s' "$line" | tr -d ' \t\r')"
    [ -n "$line" ] || continue
    key="${line%%=*}"; value="${line#*=}"
    if [ "$key" = "$line" ] || ! media_known_key "$key"; then
      echo "strata-media: $file line $n: '$line' is not KIND.KEY=N (KIND: $MEDIA_KINDS;" \
        "KEY: $MEDIA_KEYS)" >&2; return 2
    fi
    if ! [[ "$value" =~ ^[0-9]+$ ]] || [ "$value" -lt 1 ]; then
      echo "strata-media: $file line $n: $key must be a positive whole number, not '$value'" >&2
      return 2
    fi
    MEDIA_PROFILE[$key]="$value"
  done <"$file"
  local k kind
  for kind in $MEDIA_KINDS; do for k in $MEDIA_KEYS; do
    [ -n "${MEDIA_PROFILE[$kind.$k]:-}" ] || {
      echo "strata-media: $file has no $kind.$k" >&2; return 2; }
  done; done
}

media_known_key() {
  local kind k
  for kind in $MEDIA_KINDS; do for k in $MEDIA_KEYS; do
    [ "$1" = "$kind.$k" ] && return 0
  done; done
  return 1
}

# --volume-gb KIND=N (KIND as the profile's, or SSD/DISK/ARCHIVE).
media_size_override() {
  local kind="${1%%=*}" gb="${1#*=}"
  kind="$(printf '%s' "$kind" | tr 'A-Z' 'a-z')"
  if [ "$kind" = "$1" ] || ! [[ " $MEDIA_KINDS " == *" $kind "* ]]; then
    echo "strata-media: --volume-gb takes KIND=GiB with KIND one of $MEDIA_KINDS, not '$1'" >&2
    return 2
  fi
  if ! [[ "$gb" =~ ^[0-9]+$ ]] || [ "$gb" -lt 1 ]; then
    echo "strata-media: --volume-gb $kind must be a positive whole number of GiB, not '$gb'" >&2
    return 2
  fi
  MEDIA_PROFILE[$kind.size.gb]="$gb"
}

# Whether this machine lets us build throttled loop volumes; if not, MEDIA_REFUSED names what
# failed (one line).
media_preflight() {
  MEDIA_REFUSED=""
  if [ "$(id -u)" != 0 ]; then
    MEDIA_REFUSED="not root (losetup, mount and the blkio cgroup need root)"; return 1
  fi
  local f
  for f in read_bps write_bps read_iops write_iops; do
    if [ ! -w "$MEDIA_BLKIO/blkio.throttle.${f}_device" ]; then
      MEDIA_REFUSED="no writable $MEDIA_BLKIO/blkio.throttle.${f}_device (cgroup v1 blkio throttling)"
      return 1
    fi
  done
  for f in losetup mkfs.ext4 blkid findmnt mount umount; do
    command -v "$f" >/dev/null || { MEDIA_REFUSED="$f is not installed"; return 1; }
  done
  local err
  if ! err=$(losetup -f 2>&1); then
    MEDIA_REFUSED="losetup -f finds no free loop device: $err"; return 1
  fi
  return 0
}

# Throttle lines of one device in the root blkio cgroup; 0 removes a line (cgroup v1).
media_throttle() {
  local majmin="$1"
  echo "$majmin $2" >"$MEDIA_BLKIO/blkio.throttle.read_bps_device"
  echo "$majmin $3" >"$MEDIA_BLKIO/blkio.throttle.write_bps_device"
  echo "$majmin $4" >"$MEDIA_BLKIO/blkio.throttle.read_iops_device"
  echo "$majmin $5" >"$MEDIA_BLKIO/blkio.throttle.write_iops_device"
}
media_unthrottle() { media_throttle "$1" 0 0 0 0 2>/dev/null || true; }
media_throttled() {
  grep -qs "^$1 " "$MEDIA_BLKIO"/blkio.throttle.{read,write}_{bps,iops}_device
}

# The loop devices attached to BACKING, one a line.
media_loops_of() { losetup -n -O NAME -j "$1" 2>/dev/null | tr -d ' ' || true; }
# Whether DEV is (still) a loop device over BACKING: a recorded device may have been detached
# and reused for another file since.
media_loop_is() {
  [ -b "$1" ] && [ "$(losetup -n -O BACK-FILE "$1" 2>/dev/null | sed 's/ *$//')" = "$(realpath "$2")" ]
}
media_majmin() { printf '%d:%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"; }

# ROOT, bound onto itself as a shared mount (recorded in STATE), for the volumes to be mounted
# under. A mount namespace copied from this one while they are mounted (`ip netns exec`, as any
# --netns cluster's daemons are started, makes its copy a slave) then receives their unmounts at
# down: without it the copy keeps each file system, and so its loop device, open for as long as
# those processes live (mount and unmount events propagate through the parent mount, and / is
# private here).
media_shared_root() {
  local state="$1" root="$2" err
  mkdir -p "$root"
  if ! mountpoint -q "$root"; then
    if ! err=$(mount --bind "$root" "$root" 2>&1); then
      echo "strata-media: bind mount of $root failed: $err" >&2; return 1
    fi
  fi
  media_record "$state" "$root" - - - shared-root
  if ! err=$(mount --make-shared "$root" 2>&1); then
    echo "strata-media: mount --make-shared $root failed: $err" >&2; return 1
  fi
}

# Records (or re-records) one volume: MNT BACKING DEV MAJMIN KIND, keyed by MNT.
media_record() {
  local state="$1" mnt="$2"; shift 2
  mkdir -p "$(dirname "$state")"
  touch "$state"
  { grep -v "^$mnt " "$state" || true; echo "$mnt $*"; } >"$state.tmp" && mv "$state.tmp" "$state"
}
media_unrecord() {
  [ -f "$1" ] || return 0
  { grep -v "^$2 " "$1" || true; } >"$1.tmp" && mv "$1.tmp" "$1"
}

# Sets up one volume at MNT: the backing file (created sparse when missing, formatted then), its
# loop device (one already attached to it, from a run that crashed, is reused rather than doubled),
# the mount (kept when it is already ours) and the throttle lines of KIND. Fails, naming what,
# when something is not ours or the kernel refuses; the caller undoes with media_down.
media_volume_up() {
  local state="$1" mnt="$2" backing="$3" kind="$4"
  local gb="${MEDIA_PROFILE[$kind.size.gb]}" fresh=0 dev err src
  mkdir -p "$mnt" "$(dirname "$backing")"
  if [ ! -f "$backing" ]; then
    if mountpoint -q "$mnt" || [ -n "$(ls -A "$mnt" 2>/dev/null)" ]; then
      echo "strata-media: $mnt already holds data (or a mount) and has no backing file $backing:" \
        "a loop volume mounted there would hide it" >&2; return 1
    fi
    truncate -s "${gb}G" "$backing"; fresh=1
  fi
  dev=$(media_loops_of "$backing" | head -1)
  if [ -n "$dev" ] && [ "$(losetup -n -O AUTOCLEAR "$dev" 2>/dev/null | tr -d ' ')" = 1 ]; then
    # Detached at an earlier down while still open: a second device over the same file system
    # would corrupt it, and this one goes away when its last user does.
    echo "strata-media: $backing is still held by $dev, detached but open: its file system is" \
      "mounted in another mount namespace (pids $(media_ns_holders "$mnt")); retry when they end" >&2
    return 1
  elif [ -n "$dev" ]; then
    media_log "$mnt: reusing $dev, still attached to $backing"
  else
    # Direct I/O between the loop device and its backing file: the data is cached once, above
    # the throttled device, not a second time below it.
    if ! dev=$(losetup -f --show --direct-io=on "$backing" 2>&1) &&
       ! dev=$(losetup -f --show "$backing" 2>&1); then
      echo "strata-media: losetup of $backing failed: $dev" >&2; return 1
    fi
  fi
  local majmin; majmin=$(media_majmin "$dev")
  media_record "$state" "$mnt" "$backing" "$dev" "$majmin" "$kind"
  if [ $fresh = 1 ] || [ -z "$(blkid -p -o value -s TYPE "$dev" 2>/dev/null)" ]; then
    # Inode tables and journal written now, before the throttle, not lazily behind it later.
    if ! err=$(mkfs.ext4 -q -F -m 0 -L "strata-$kind" \
        -E lazy_itable_init=0,lazy_journal_init=0 "$dev" 2>&1); then
      echo "strata-media: mkfs.ext4 on $dev ($backing) failed: $err" >&2; return 1
    fi
  fi
  src=$(findmnt -n -o SOURCE --mountpoint "$mnt" 2>/dev/null || true)
  if [ -n "$src" ] && [ "$src" != "$dev" ]; then
    echo "strata-media: $mnt is mounted from $src, not from $dev ($backing)" >&2; return 1
  elif [ -z "$src" ]; then
    if [ -n "$(ls -A "$mnt" 2>/dev/null)" ]; then
      echo "strata-media: $mnt is not empty: mounting $dev there would hide what it holds" >&2
      return 1
    fi
    # errors=remount-ro: an ext4 error (a real one, or `strata chaos`'s volume-io-errors through
    # /sys/fs/ext4/DEV/trigger_fs_error) turns the volume read-only, so the DataNode's writes fail
    # and its volume checker finds it failed, as with a dying disk.
    if ! err=$(mount -t ext4 -o "$MEDIA_MOUNT_OPTIONS" "$dev" "$mnt" 2>&1); then
      echo "strata-media: mount of $dev at $mnt failed: $err" >&2; return 1
    fi
  fi
  if ! err=$(media_throttle "$majmin" $((MEDIA_PROFILE[$kind.read.mbps] * 1000000)) \
      $((MEDIA_PROFILE[$kind.write.mbps] * 1000000)) "${MEDIA_PROFILE[$kind.read.iops]}" \
      "${MEDIA_PROFILE[$kind.write.iops]}" 2>&1); then
    echo "strata-media: throttling $dev ($majmin) in $MEDIA_BLKIO failed: $err" >&2; return 1
  fi
}

# Undoes one recorded volume, each step only while it is still ours: the throttle lines of its
# device, its mount at MNT, the loop device over BACKING. Fails when something stays.
media_volume_down() {
  local mnt="$1" backing="$2" dev="$3" majmin="$4" ok=0 err
  if media_loop_is "$dev" "$backing"; then
    media_unthrottle "$majmin"
    if [ "$(findmnt -n -o SOURCE --mountpoint "$mnt" 2>/dev/null)" = "$dev" ]; then
      err=$(umount "$mnt" 2>&1) || { media_log "umount $mnt failed: $err"; ok=1; }
    fi
    if [ $ok = 0 ]; then
      err=$(losetup -d "$dev" 2>&1) || { media_log "losetup -d $dev failed: $err"; ok=1; }
    fi
    # A device still open is only marked to detach when its last user lets go: a copy of the
    # mount in another mount namespace keeps it.
    local t
    for t in 1 2 3 4 5 6 7 8 9 10; do media_loop_is "$dev" "$backing" || break; sleep 0.2; done
    if [ $ok = 0 ] && media_loop_is "$dev" "$backing"; then
      media_log "$dev ($backing) is still attached, held open: its file system is mounted in" \
        "another mount namespace (pids $(media_ns_holders "$mnt")); it detaches when they end"
      ok=1
    fi
  fi
  # Any other loop device left over $backing by an earlier crash (never mounted by us).
  local other
  for other in $(media_loops_of "$backing"); do
    [ "$other" != "$dev" ] || continue
    if [ -z "$(findmnt -n -o TARGET --source "$other" 2>/dev/null)" ]; then
      media_unthrottle "$(media_majmin "$other")"
      losetup -d "$other" 2>/dev/null || ok=1
    fi
  done
  return $ok
}

# Processes whose mount namespace still has MNT mounted (other than this one's).
media_ns_holders() {
  local f pids="" self; self=$(readlink /proc/self/ns/mnt)
  for f in /proc/[0-9]*/mountinfo; do
    local p="${f#/proc/}"; p="${p%/mountinfo}"
    [ "$(readlink "/proc/$p/ns/mnt" 2>/dev/null)" != "$self" ] || continue
    if awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' "$f" 2>/dev/null; then
      pids="$pids${pids:+ }$p"
    fi
  done
  printf '%s' "${pids:-unknown}"
}

# Every volume STATE records, down, then the shared root they were under; the lines of those
# fully undone leave STATE.
media_down() {
  local state="$1" mnt backing dev majmin kind failed=0 n=0 roots=()
  [ -s "$state" ] || return 0
  while read -r mnt backing dev majmin kind; do
    [ -n "$mnt" ] || continue
    if [ "$kind" = shared-root ]; then roots+=("$mnt"); continue; fi
    if media_volume_down "$mnt" "$backing" "$dev" "$majmin"; then
      media_unrecord "$state" "$mnt"; n=$((n + 1))
    else
      failed=1
    fi
  done < <(cat "$state")
  local root err
  for root in "${roots[@]}"; do
    if [ "$(findmnt -n -o TARGET --mountpoint "$root" 2>/dev/null)" = "$root" ]; then
      if [ -n "$(findmnt -n -R -o TARGET "$root" | grep -vx -- "$root" || true)" ]; then
        failed=1; continue  # a volume is still mounted under it (logged above)
      fi
      err=$(umount "$root" 2>&1) || { media_log "umount $root failed: $err"; failed=1; continue; }
    fi
    media_unrecord "$state" "$root"
  done
  media_log "media: $n loop volumes unthrottled, unmounted and detached$([ $failed = 0 ] ||
    echo "; some remain, listed in $state")"
  [ -s "$state" ] || rm -f "$state"
  return $failed
}

# What of STATE's volumes is still there (mounted, attached or throttled), one a line.
media_leftovers() {
  local state="$1" mnt backing dev majmin kind
  [ -s "$state" ] || return 0
  while read -r mnt backing dev majmin kind; do
    [ -n "$mnt" ] || continue
    if findmnt -n --mountpoint "$mnt" >/dev/null 2>&1; then echo "mounted $mnt"; fi
    [ "$kind" != shared-root ] || continue
    if [ -n "$(media_loops_of "$backing")" ]; then echo "attached $(media_loops_of "$backing" | tr '\n' ' ')"; fi
    if media_throttled "$majmin"; then echo "throttled $majmin"; fi
  done <"$state"
}

# fio, through one mounted volume of KIND (a few seconds): sequential 1 MiB writes with
# direct=1 and buffered then fsync'd (the time includes the fsync), random 4 KiB direct reads
# and writes. Writes OUT (JSON: the target, the measured, ok within 15 %) and keeps fio's own
# JSON output beside it (OUT's name with .fio-*.json). Prints one WARN line per figure off.
media_probe() {
  local mnt="$1" kind="$2" out="$3"
  local f="$mnt/.strata-media-probe" base="${out%.json}"
  local wmb="${MEDIA_PROFILE[$kind.write.mbps]}" riops="${MEDIA_PROFILE[$kind.read.iops]}"
  local wiops="${MEDIA_PROFILE[$kind.write.iops]}"
  # Big enough to take about two seconds at the target, small enough for the volume.
  local free_mb size_mb
  free_mb=$(( $(df -B1M --output=avail "$mnt" | tail -1 | tr -d ' ') ))
  size_mb=$(( wmb * 2 )); [ $size_mb -le $((free_mb / 3)) ] || size_mb=$((free_mb / 3))
  local common=(--filename="$f" --size="${size_mb}M" --ioengine=libaio --group_reporting
    --output-format=json)
  fio "${common[@]}" --name=seqwrite-direct --rw=write --bs=1M --direct=1 --iodepth=8 \
    --runtime=3 --time_based --output="$base.fio-seqwrite-direct.json" >/dev/null || return 1
  fio "${common[@]}" --name=randread --rw=randread --bs=4k --direct=1 --iodepth=32 \
    --runtime=3 --time_based --output="$base.fio-randread.json" >/dev/null || return 1
  fio "${common[@]}" --name=randwrite --rw=randwrite --bs=4k --direct=1 --iodepth=32 \
    --runtime=3 --time_based --output="$base.fio-randwrite.json" >/dev/null || return 1
  rm -f "$f"; sync
  local t0 t1
  t0=$(date +%s%N)
  fio "${common[@]}" --name=seqwrite-buffered --rw=write --bs=1M --direct=0 --end_fsync=1 \
    --output="$base.fio-seqwrite-buffered.json" >/dev/null || return 1
  t1=$(date +%s%N)
  rm -f "$f"
  # The probe's blocks back to the sparse backing file (the loop device passes discards on),
  # once the deletion is committed (ext4 trims only blocks freed in a committed transaction).
  sync -f "$mnt"
  fstrim "$mnt" 2>/dev/null || true
  local direct_mb buffered_mb rand_r rand_w
  direct_mb=$(media_fio_value "$base.fio-seqwrite-direct.json" write bw_bytes | awk '{printf "%.1f", $1 / 1e6}')
  buffered_mb=$(awk -v s="$size_mb" -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f", s * 1048576 / 1e6 / (ns / 1e9) }')
  rand_r=$(media_fio_value "$base.fio-randread.json" read iops | awk '{printf "%.0f", $1}')
  rand_w=$(media_fio_value "$base.fio-randwrite.json" write iops | awk '{printf "%.0f", $1}')
  local ok=true
  media_within "$kind" "seq write MB/s (direct=1)" "$direct_mb" "$wmb" || ok=false
  media_within "$kind" "seq write MB/s (buffered+fsync)" "$buffered_mb" "$wmb" || ok=false
  media_within "$kind" "rand 4 KiB read IOPS" "$rand_r" "$riops" || ok=false
  media_within "$kind" "rand 4 KiB write IOPS" "$rand_w" "$wiops" || ok=false
  printf '{"kind": "%s", "target": {"seq_write_mbps": %s, "rand_read_iops": %s, "rand_write_iops": %s}, "measured": {"seq_write_mbps_direct": %s, "seq_write_mbps_buffered_fsync": %s, "rand_read_iops": %s, "rand_write_iops": %s}, "ok": %s}\n' \
    "$kind" "$wmb" "$riops" "$wiops" "$direct_mb" "$buffered_mb" "$rand_r" "$rand_w" "$ok" >"$out"
}

# A job's figure from fio's JSON: the first "KEY" : N after the "DIRECTION" object opens.
media_fio_value() {
  tr -d '\n' <"$1" | sed -n "s/.*\"$2\" *: *{[^}]*\"$3\" *: *\([0-9.e+]*\).*/\1/p" | head -1
}

# Whether MEASURED is within 15 % of TARGET; a WARN line naming kind, figure, both when not.
media_within() {
  local kind="$1" what="$2" measured="$3" target="$4"
  if awk -v m="${measured:-0}" -v t="$target" 'BEGIN { exit !(m >= 0.85 * t && m <= 1.15 * t) }'; then
    media_log "media probe $kind: $what $measured, target $target: ok"
  else
    media_log "WARN media probe $kind: $what measured $measured, target $target (more than 15% off)"
    return 1
  fi
}
