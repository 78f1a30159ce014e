"""Prints a banner with the machine's name for the local console."""
import os
import pwd


def banner():
    u = os.uname()
    who = pwd.getpwuid(os.getuid()).pw_name
    return f"{who} on {u.nodename} ({u.sysname} {u.release})"


if __name__ == "__main__":
    with open("/tmp/session.log", "a") as fh:
        fh.write(banner() + "\n")
    print(banner())
