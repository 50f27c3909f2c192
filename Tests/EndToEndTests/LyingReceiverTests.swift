import Foundation
import Glibc
import Testing

/// A receiver that lies in its Answer is not believed (issue 11, point 7): a resume offset past
/// the end of the file, or a verdict for an item never offered, ends the send with an error that
/// names the receiver and its address, and nothing more is sent to it. The liar is a real TLS 1.3
/// receiver speaking share's framing (Python's ssl, an Ed25519 certificate from openssl, the
/// Hello's ID its public key's SHA-256), so the built `share` meets it as it would on a network.
@Suite struct LyingReceiverTests {
  /// `python3 -c liar MODE`: prints its port, accepts one sender, answers its Hello as "liar",
  /// answers its Ask with the lie MODE names (`offset`: a resume offset a megabyte past the end;
  /// `unknown`: a verdict for item #(id + 77) besides the real one), then prints what the sender
  /// did next: "after: closed", or the kind of the frame it sent.
  static let liar = """
    import hashlib, json, os, shutil, socket, ssl, struct, subprocess, sys, tempfile
    mode = sys.argv[1]
    d = tempfile.mkdtemp()
    key, cert = os.path.join(d, "k.pem"), os.path.join(d, "c.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ed25519", "-nodes", "-subj", "/CN=liar", "-days", "1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    spki = subprocess.run(["openssl", "x509", "-in", cert, "-pubkey", "-noout"], check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "DER"], input=spki, check=True, capture_output=True).stdout
    ident = hashlib.sha256(der).hexdigest()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_cert_chain(cert, key)
    shutil.rmtree(d)
    ctx.verify_mode = ssl.CERT_NONE
    listener = socket.create_server(("127.0.0.1", 0))
    print(listener.getsockname()[1], flush=True)
    raw, _ = listener.accept()
    conn = ctx.wrap_socket(raw, server_side=True)
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk: raise EOFError
            data += chunk
        return data
    def frame():
        kind, length = struct.unpack(">BI", exactly(5))
        return kind, exactly(length)
    def control():
        kind, payload = frame()
        assert kind == 1, kind
        return json.loads(payload)
    def send(message):
        body = json.dumps(message).encode()
        conn.sendall(struct.pack(">BI", 1, len(body)) + body)
    hello = control()
    send({"type": "hello", "version": hello["version"], "name": "liar", "id": ident})
    item = control()["items"][0]
    if mode == "offset":
        send({"type": "answer", "items": [{"id": item["id"], "accepted": True, "offset": item["size"] + 1000000}]})
    else:
        send({"type": "answer", "items": [{"id": item["id"], "accepted": True}, {"id": item["id"] + 77, "accepted": True}]})
    try:
        kind, _ = frame()
        print(f"after: a frame of kind {kind}", flush=True)
    except (EOFError, ssl.SSLError, ConnectionError):
        print("after: closed", flush=True)
    """

  /// Starts the liar, sends a 5000-byte file to it, and returns the send and what the liar saw
  /// after its lie.
  func sendToLiar(_ mode: String) throws -> (sent: CommandResult, port: String, after: String) {
    let alice = try ShareHome(name: "alice")
    let liar = try ChildProcess(
      executable: URL(fileURLWithPath: "/usr/bin/python3"), arguments: ["-c", Self.liar, mode],
      environment: ProcessInfo.processInfo.environment)
    var port = ""
    liar.waitFor(timeout: .seconds(30)) { stdout, _, exited in
      port = String(decoding: stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
      return exited || String(decoding: stdout, as: UTF8.self).contains("\n")
    }
    guard UInt16(port) != nil else { throw HarnessError("the lying receiver did not start:\n\(liar.wait(timeout: .seconds(1)))") }
    let sent = try alice.share("send", try alice.randomFile("f.bin", size: 5000).path, "--to", "127.0.0.1:\(port)")
    let told = liar.wait(timeout: .seconds(20))
    let after = told.stdoutText.split(separator: "\n").first { $0.hasPrefix("after: ") }.map(String.init) ?? "\(told)"
    return (sent, port, after)
  }

  @Test func aResumeOffsetPastTheEndIsRefusedNamingTheReceiverAndNothingFollows() throws {
    let (sent, port, after) = try sendToLiar("offset")
    #expect(sent.exited(with: 1), "\(sent)")
    #expect(
      sent.stderrText.contains(
        "Error: liar at 127.0.0.1:\(port) broke the share protocol: it sent a resume offset of 1005000 for \"f.bin\", past its end (5000 bytes)"
      ),
      "\(sent)")
    #expect(!sent.stderrText.contains("resuming"), "the lie was believed: \(sent)")
    #expect(after == "after: closed", "the sender went on after the lie: \(after)")
  }

  @Test func aVerdictForAnItemNeverOfferedIsRefusedNamingTheReceiverAndNothingFollows() throws {
    let (sent, port, after) = try sendToLiar("unknown")
    #expect(sent.exited(with: 1), "\(sent)")
    #expect(
      sent.stderrText.contains("Error: liar at 127.0.0.1:\(port) broke the share protocol: its answer is about item #"), "\(sent)")
    #expect(sent.stderrText.contains("which was never offered"), "\(sent)")
    #expect(after == "after: closed", "the sender went on after the lie: \(after)")
  }
}
