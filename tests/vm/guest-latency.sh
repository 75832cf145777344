# Sourced by guest tests that read baton-latency-client's summary and
# baton's exit lines (tearing_test.sh, vrr_test.sh); $log is baton's log.

# value of name=VALUE in the client's summary line FILE
summary() { sed -E -n "s/.*latency-client: .* $2=([-0-9.]+).*/\\1/p" "$1" | head -n 1; }
# number after `pattern` (a sed -E expression with one group) in baton's log
field() { sed -E -n "s/$1/\\1/p" "$log" | head -n 1; }
# a < b for decimals
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
