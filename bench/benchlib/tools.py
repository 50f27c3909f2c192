"""The tools measured beside share: the TLS reference, plain disk writes, scp and rsync over an
sshd started here, magic-wormhole with its own servers. Each prepares what it needs once and
measures one run of one workload into a fresh destination folder."""

import os
import re
import shutil
import subprocess
import time

from .common import BenchError, free_port, run_quiet
from .hosts import in_bench_netns
from .measure import row
from .procs import Timed, spawn, wait_for_file_line, wait_for_line, wait_for_port


class Reference:
    """tls_ref (bench/tls_ref.c): a minimal TLS 1.3 stream with OpenSSL, the physical limit."""

    def __init__(self, ctx):
        self.ctx = ctx

    def prepare(self):
        self.tls_cert = os.path.join(self.ctx.keys, "tls-cert.pem")
        self.tls_key = os.path.join(self.ctx.keys, "tls-key.pem")
        r = run_quiet(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                       "-keyout", self.tls_key, "-out", self.tls_cert, "-days", "2", "-subj", "/CN=share-bench"])
        if r.returncode != 0:
            raise BenchError(f"openssl req failed: {r.stdout}")
        if not os.access(self.ctx.args.tls_ref, os.X_OK):
            self.ctx.unavailable["ref"] = f"{self.ctx.args.tls_ref} is not built"

    def measure(self, w, dest, mode):
        """tls_ref: server (receiver) listening first, then the client; wall = client start to both exited.
        mode: "null" (/dev/null), "file" (buffered writes, fsync), "direct" (O_DIRECT writes, fsync),
        "sha" (as direct, and SHA-256 of every byte on both sides on a second thread, checked)."""
        fsync = mode != "null"
        direct = mode in ("direct", "sha")
        hashed = ["--sha256"] if mode == "sha" else []
        target = os.path.join(dest, "ref.out") if fsync else "/dev/null"
        srv_argv = ([self.ctx.args.tls_ref, "server", "--cert", self.tls_cert, "--key", self.tls_key, "--out", target]
                    + (["--fsync"] if fsync else []) + (["--direct"] if direct else []) + hashed)
        srv = Timed(self.ctx.logname("ref-server"), srv_argv, self.ctx.logs, stdout=subprocess.PIPE)
        m = wait_for_line(srv.proc.stdout, r"listening on port (\d+)", 10, "tls_ref server")
        port = m.group(1).decode()
        t0 = time.monotonic()
        cli = Timed(self.ctx.logname("ref-client"), [self.ctx.args.tls_ref, "client", "--port", port, "--in", w.paths[0], *hashed], self.ctx.logs)
        rc_c = cli.wait(self.ctx.args.timeout)
        rc_s = srv.wait(30)
        wall = max(cli.ended, srv.ended) - t0
        if rc_c or rc_s:
            raise BenchError(f"tls_ref failed: client {rc_c} {cli.stderr_tail()} server {rc_s} {srv.stderr_tail()}")
        if fsync:
            self.ctx.check_dest(w, dest, "tls_ref")
        return row(wall, cli, srv)


class Disk:
    """Plain disk writes: dd for one file, cp -r for a folder."""

    def __init__(self, ctx):
        self.ctx = ctx

    def measure(self, w, dest, mode):
        """mode: "none" (no fsync), "fsync", "direct" (O_DIRECT and fsync); a folder is copied with cp -r (+ syncfs)."""
        if w.folder:
            target = os.path.join(dest, "small")
            cmd = 'cp -r "$1" "$2"' + (' && sync -f "$2"' if mode != "none" else "")
            argv = ["sh", "-c", cmd, "sh", w.folder, target]
        else:
            argv = (["dd", f"if={w.paths[0]}", f"of={os.path.join(dest, 'dd.out')}", "bs=1M", "status=none"]
                    + (["conv=fsync"] if mode != "none" else []) + (["oflag=direct"] if mode == "direct" else []))
        t0 = time.monotonic()
        p = Timed(self.ctx.logname("disk"), argv, self.ctx.logs)
        rc = p.wait(self.ctx.args.timeout)
        wall = p.ended - t0
        if rc:
            raise BenchError(f"disk write failed: {p.stderr_tail()}")
        self.ctx.check_dest(w, dest, "disk")
        return row(wall, p, None)


class Ssh:
    """scp and rsync over an sshd on a loopback port, with its own keys."""

    def __init__(self, ctx):
        self.ctx = ctx

    def prepare(self):
        sshd = "/usr/sbin/sshd"
        if not os.access(sshd, os.X_OK) or not shutil.which("scp") or not shutil.which("rsync"):
            for t in ("scp", "rsync", "rsync-fsync"):
                self.ctx.unavailable[t] = "openssh-server / openssh-client / rsync not installed"
            return
        k = self.ctx.keys
        for name in ("ssh_host_ed25519_key", "client_ed25519_key"):
            p = os.path.join(k, name)
            if not os.path.exists(p):
                r = run_quiet(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "share-bench", "-f", p])
                if r.returncode != 0:
                    raise BenchError(f"ssh-keygen: {r.stdout}")
        shutil.copy(os.path.join(k, "client_ed25519_key.pub"), os.path.join(k, "authorized_keys"))
        os.chmod(os.path.join(k, "authorized_keys"), 0o600)
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege-separation folder
        self.ssh_port = free_port()
        self.sshd_config = os.path.join(k, "sshd_config")
        user = os.environ.get("USER") or run_quiet(["id", "-un"]).stdout.strip()
        self.ssh_user = user
        with open(self.sshd_config, "w") as f:
            f.write(f"""# share benchmark: loopback only, own keys, key auth only
ListenAddress 127.0.0.1
Port {self.ssh_port}
HostKey {k}/ssh_host_ed25519_key
AuthorizedKeysFile {k}/authorized_keys
PidFile none
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers {user}
PrintMotd no
PrintLastLog no
UseDNS no
Subsystem sftp /usr/lib/openssh/sftp-server
# bash reads ~/.bashrc for commands run by sshd unless SHLVL says it is nested: keep the
# user's shell start-up files (pyenv, cargo env, ...) out of scp's and rsync's timings
SetEnv SHLVL=1
""")
        self.ssh_opts = ["-F", "/dev/null", "-i", os.path.join(k, "client_ed25519_key"), "-o", "StrictHostKeyChecking=no",
                         "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"]
        # Which cipher does the default negotiate? One verbose connection says.
        sshd = self.start_sshd("probe")
        probe_opts = self.ssh_opts[:-2]  # without LogLevel=ERROR
        r = run_quiet(["ssh", "-v", *probe_opts, "-p", str(self.ssh_port), f"{user}@127.0.0.1",
                       "echo shell-ok:$SHLVL"], timeout=30)
        sshd.wait(30)
        m = re.search(r"kex: server->client cipher: (\S+)", r.stdout)
        ok = "shell-ok" in r.stdout
        if not ok:
            for t in ("scp", "rsync", "rsync-fsync"):
                self.ctx.unavailable[t] = f"ssh to the bench sshd failed: {r.stdout[-300:]}"
            return
        cipher = m.group(1) if m else "unknown"
        self.ctx.info["ssh"] = f"{run_quiet(['ssh', '-V']).stdout.strip()}, default cipher negotiated: {cipher}"
        self.ctx.notes["scp"] = "SFTP protocol (scp's default); no fsync"
        self.ctx.notes["rsync"] = "over ssh; no fsync"
        self.ctx.notes["rsync-fsync"] = "over ssh, --fsync"

    def start_sshd(self, tag):
        """One sshd in debug mode (-d): serves exactly one connection, then exits, so its whole
        process tree (monitor, session, sftp-server or rsync --server) is measured by time."""
        t = Timed(self.ctx.logname(f"sshd-{tag}"), ["/usr/sbin/sshd", "-d", "-e", "-f", self.sshd_config], self.ctx.logs)
        wait_for_file_line(t.err_file, r"Server listening on 127\.0\.0\.1 port", 10, "sshd", t.proc)
        return t

    def scp(self, w, dest):
        sshd = self.start_sshd("scp")
        src = [w.folder] if w.folder else w.paths
        argv = ["scp", *self.ssh_opts, "-q", "-P", str(self.ssh_port)] + (["-r"] if w.folder else []) + src + [f"{self.ssh_user}@127.0.0.1:{dest}/"]
        t0 = time.monotonic()
        p = Timed(self.ctx.logname("scp"), argv, self.ctx.logs)
        rc = p.wait(self.ctx.args.timeout)
        wall = p.ended - t0
        sshd.wait(30)
        if rc:
            raise BenchError(f"scp failed ({rc}): {p.stderr_tail()} / sshd: {sshd.stderr_tail()}")
        self.ctx.check_dest(w, dest, "scp")
        return row(wall, p, sshd)

    def rsync(self, w, dest, extra=()):
        sshd = self.start_sshd("rsync")
        ssh = " ".join(["ssh", *self.ssh_opts, "-p", str(self.ssh_port)])
        src = [w.folder + "/"] if w.folder else w.paths
        argv = ["rsync", "-e", ssh, *extra] + (["-r"] if w.folder else []) + src + [f"{self.ssh_user}@127.0.0.1:{dest}/"]
        t0 = time.monotonic()
        p = Timed(self.ctx.logname("rsync"), argv, self.ctx.logs)
        rc = p.wait(self.ctx.args.timeout)
        wall = p.ended - t0
        sshd.wait(30)
        if rc:
            raise BenchError(f"rsync failed ({rc}): {p.stderr_tail()} / sshd: {sshd.stderr_tail()}")
        self.ctx.check_dest(w, dest, "rsync")
        return row(wall, p, sshd)

    def rsync_fsync(self, w, dest):
        return self.rsync(w, dest, extra=["--fsync"])


class Wormhole:
    """magic-wormhole, with its own mailbox server and transit relay on loopback (bench/.venv)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.servers = []
        self.direct = []  # per run: whether the transit went direct (not through the relay)

    def prepare(self):
        venv_bin = os.path.join(self.ctx.args.venv, "bin")
        need = ["wormhole", "twist"]
        if not all(os.access(os.path.join(venv_bin, n), os.X_OK) for n in need):
            self.ctx.unavailable["wormhole"] = f"magic-wormhole not installed in {self.ctx.args.venv} (bench/run.sh installs it from PyPI)"
            return
        wdir = os.path.join(self.ctx.scratch, "wormhole")
        os.makedirs(wdir, exist_ok=True)
        self.wh_mailbox = free_port()
        self.wh_relay = free_port()
        twist = os.path.join(venv_bin, "twist")
        logs = [open(os.path.join(self.ctx.logs, f"wormhole-{n}.log"), "wb") for n in ("mailbox", "relay")]
        self.servers.append(spawn([twist, "wormhole-mailbox", f"--port=tcp:{self.wh_mailbox}:interface=127.0.0.1",
                                            f"--channel-db={wdir}/relay.sqlite"], stdout=logs[0], stderr=logs[0], cwd=wdir))
        self.servers.append(spawn([twist, "transitrelay", f"--port=tcp:{self.wh_relay}:interface=127.0.0.1"],
                                           stdout=logs[1], stderr=logs[1], cwd=wdir))
        try:
            wait_for_port(self.wh_mailbox, 30, "wormhole mailbox server")
            wait_for_port(self.wh_relay, 30, "wormhole transit relay")
        except BenchError as e:
            self.ctx.unavailable["wormhole"] = str(e)
            return
        self.wormhole = os.path.join(venv_bin, "wormhole")
        ver = run_quiet([self.wormhole, "--version"]).stdout.strip()
        self.ctx.info["wormhole"] = f"{ver}, mailbox and transit relay servers on 127.0.0.1"
        self.ctx.notes["wormhole"] = "no fsync"
        
    def measure(self, w, dest):
        """Sender and receiver start together with a fixed code; wall = start to both exited."""
        self.ctx.seq += 1
        code = f"{self.ctx.seq}-share-bench"
        common = [self.wormhole, "--relay-url", f"ws://127.0.0.1:{self.wh_mailbox}/v1", "--transit-helper", f"tcp:127.0.0.1:{self.wh_relay}"]
        what = w.folder if w.folder else w.paths[0]
        env = dict(os.environ, WORMHOLE_QR="0")
        # Outside our own network namespace, direct-connection hints would name this machine's
        # other addresses: then both sides stay off them and go through the loopback relay.
        listen = [] if in_bench_netns() else ["--no-listen"]
        t0 = time.monotonic()
        snd = Timed(self.ctx.logname("wormhole-send"), common + ["send", "--hide-progress", "--no-qr", *listen, "--code", code, what], self.ctx.logs, env=env)
        rcv = Timed(self.ctx.logname("wormhole-receive"), common + ["receive", "--hide-progress", *listen, "--accept-file", code], self.ctx.logs, cwd=dest, env=env)
        rc_r = rcv.wait(self.ctx.args.timeout)
        rc_s = snd.wait(60)
        wall = max(snd.ended, rcv.ended) - t0
        if rc_r or rc_s:
            raise BenchError(f"wormhole failed: send {rc_s} {snd.stderr_tail()} / receive {rc_r} {rcv.stderr_tail()}")
        err = rcv.stderr_tail(4000) + snd.stderr_tail(4000)  # "(->tcp:HOST:PORT)" direct, "(->relay:...)" relayed
        self.direct.append("relay" not in err and f":{self.wh_relay})" not in err)
        self.ctx.check_dest(w, dest, "wormhole")
        return row(wall, snd, rcv)
