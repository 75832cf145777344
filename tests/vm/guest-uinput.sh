# Sourced inside the guest: runs vm-uinput ($uinput) as a coprocess and
# defines send CMD..., which hands it one command and fails unless it
# answers ok. Needs fail() defined.
coproc UI { "$uinput" 2>&1; }
send() {
  local reply
  echo "$*" >&"${UI[1]}"
  read -r -t 30 reply <&"${UI[0]}" || fail "vm-uinput did not answer '$*'"
  [[ $reply == ok* ]] || fail "vm-uinput: $reply"
}
