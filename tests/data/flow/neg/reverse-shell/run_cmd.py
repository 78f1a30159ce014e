import logging
import subprocess

log = logging.getLogger(__name__)


def git_head(repo):
    proc = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        log.warning("git failed: %s", proc.stderr.strip())
        return None
    return proc.stdout.strip()
