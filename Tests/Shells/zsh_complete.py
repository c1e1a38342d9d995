#!/usr/bin/env python3
"""Completes one command line in a real interactive zsh and prints what zsh made of it.

zsh completes only inside its line editor, so this starts `zsh -f -i` on a pseudo-terminal,
loads the completion function from FOLDER with compinit, types LINE and a Tab, then puts
`print -r -- COMPLETED:` before the edited line (Ctrl-A, emacs keys) and runs it: the line as
completed comes back on standard output.

usage: zsh_complete.py FOLDER LINE
"""
import os
import pty
import select
import sys
import time


def main():
    folder, line = sys.argv[1], sys.argv[2]
    pid, terminal = pty.fork()
    if pid == 0:
        os.execve("/bin/zsh", ["zsh", "-f", "-i"], {"TERM": "dumb", "PATH": os.environ["PATH"], "HOME": folder})
    output = bytearray()

    def read_for(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([terminal], [], [], 0.05)
            if ready:
                try:
                    output.extend(os.read(terminal, 65536))
                except OSError:
                    return

    def type_and_wait(text, marker, seconds=10):
        """Types text, then reads until marker has appeared after it (or the time is up)."""
        start = len(output)
        os.write(terminal, text.encode())
        end = time.monotonic() + seconds
        while marker.encode() not in output[start:] and time.monotonic() < end:
            read_for(0.1)

    # zsh's first prompt before any key: text typed earlier is echoed by the terminal and then
    # read by zle half-way (seen on a loaded machine). Generous waits: each ends at its marker.
    end = time.monotonic() + 60
    while not output.rstrip().endswith((b"#", b"%")) and time.monotonic() < end:
        read_for(0.1)
    type_and_wait(f"fpath=({folder} $fpath); autoload -Uz compinit; compinit -u -D; PS1='READY> '\n", "READY> ", seconds=60)
    # zle reads the keys in order, so Ctrl-A and the rest act only once the Tab's completion is done.
    type_and_wait(line + "\t", line.split()[-1], seconds=2)
    type_and_wait("\x01print -r -- COMPLETED:\n", "READY> ", seconds=60)
    os.write(terminal, b"exit\n")
    read_for(0.3)
    os.waitpid(pid, 0)
    for row in output.decode(errors="replace").splitlines():
        if row.startswith("COMPLETED:"):
            print(row[len("COMPLETED:"):].rstrip())
            return 0
    print("zsh printed no completed line:\n" + output.decode(errors="replace"), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
