import Discovery
import Dispatch
import Foundation
import Glibc
import InboxStore
import Synchronization
import System
import TLS
import TextEscaping
import Wire

/// How a daemon is started.
package struct DaemonOptions: Sendable {
  package var name: String?
  package var host: String?
  package var port: UInt16 = 0
  /// The mode to start in; nil: the home's settings, else `everyone`.
  package var mode: ModeSetting?
  /// How long transfers in flight may take to finish on SIGTERM before they are cancelled.
  package var grace: Duration = .seconds(5)
  /// How long an ask waits for the person before it is declined.
  package var askTimeout: Duration = .seconds(120)
  /// A command run for each stored item (`--on-receive`).
  package var onReceive: String?
  /// The unconfined process that runs `onReceive` and notifications instead of the daemon
  /// (`--hooks-unconfined`; see `Confinement`).
  package var hookRunner: HookRunner.Channel?
  package var notify = false
  /// Staging of interrupted transfers is kept this long for resuming.
  package var stagingExpiry: TimeInterval = 7 * 86400
  /// How often a running daemon removes what has been kept longer (`InboxStore.expireResumable`).
  package var stagingSweep: DispatchTimeInterval = .seconds(3600)
  package var configuration = ReceiverConfiguration()
  /// Also receive over LocalSend (`--localsend`); nil: as the settings say.
  package var localSend: LocalSendOptions?

  package init() {}
}

/// The receiving daemon: the receiver, its gatekeeper (modes, contacts, consent), the control
/// socket, arrival hooks, and its life cycle (one per home, readiness, graceful stop, reload).
///
/// `@unchecked Sendable`: its parts are Sendable and immutable after `init`; `started` and the
/// lock descriptor are set once by `start`, before other threads see the daemon.
package final class Daemon: @unchecked Sendable {
  package let paths: SharePaths
  package let device: Device
  package let store: InboxStore
  package let receiver: Receiver
  package let gatekeeper: Gatekeeper
  package let options: DaemonOptions
  /// The LocalSend receiver, when turned on.
  let localSend: LocalSendService?
  private let hooks: ArrivalHooks
  private let types: CurrentTypeGate
  private let note: @Sendable (String) -> Void
  private var control: ControlServer?
  private var homeLock: HomeLock?
  private let startedAt = Date()
  private let advertisement = Mutex<(name: String?, state: String)>((nil, "not advertised"))
  /// The service published while the mode is not `off`.
  private let advertiser = Mutex<ServiceAdvertiser?>(nil)
  private let launched = ContinuousClock.now
  /// Gives back the pages transfers brought in, once they have ended.
  private let trimmer: IdleTrimmer
  /// Removes interrupted items' parts kept past their expiry, while the daemon runs; set by
  /// `start`.
  private var sweep: (any DispatchSourceTimer)?

  /// Loads everything the daemon needs and binds its port; a malformed declarations or trust
  /// file, a busy port, or another daemon on this home is an error.
  package init(
    paths: SharePaths, options: DaemonOptions, events: @escaping @Sendable (DaemonEvent) -> Void,
    note: @escaping @Sendable (String) -> Void
  ) throws(ShareError) {
    Self.tuneMalloc()
    self.paths = paths
    self.options = options
    self.note = note
    // First: another daemon of this home is what a person needs to hear of, not that the port
    // it holds is busy (review 18).
    homeLock = try HomeLock(paths)
    device = try Device.load(paths: paths, name: options.name)
    do {
      store = try InboxStore(documents: paths.documents)
    } catch {
      throw .inbox(error)
    }
    let gate = try TypeGate.load(paths: paths, receiverName: device.name, keepsCutDatabase: true, keepsSniffingMemory: true)
    let types = CurrentTypeGate(gate)
    self.types = types
    let settings = try Settings.load(from: paths.settings)
    let mode = options.mode ?? ModeSetting(mode: settings.receiveMode ?? .everyone, until: settings.receiveUntil)
    let hooks = ArrivalHooks(command: options.onReceive, notify: options.notify, runner: options.hookRunner, report: note)
    self.hooks = hooks
    gatekeeper = Gatekeeper(
      mode: mode, trust: try Contacts(paths: paths).trusted(), askTimeout: options.askTimeout,
      onPending: { ask in
        events(.ask(ask))
        hooks.waiting(ask)
      },
      onWithdrawn: { ask in events(.withdrawn(ask)) }, own: device.fingerprint, ownName: device.name)
    let store = self.store
    let inbox = paths.inbox
    var configuration = options.configuration
    if let reserve = settings.reserveBytes { configuration.reserveBytes = reserve }
    let received: @Sendable (ReceiverEvent) -> Void = { event in
      events(DaemonEvent(event, types: types.value))
      if hooks.runsOnArrival, case .stored(let peer, let item, let name, let size, let type, let sha256) = event {
        hooks.stored(
          ArrivalHooks.environment(
            path: inbox.appendingPathComponent(name).path, name: name, originalName: item.name.unescaped, kind: item.kind.rawValue,
            size: size, type: type?.rawValue, sha256: sha256, senderName: peer.name.unescaped,
            senderID: peer.verified ? peer.fingerprint.hex : nil, contactName: peer.contactName?.unescaped,
            posedAs: peer.posedAs?.unescaped))
      }
    }
    let trimmer = IdleTrimmer { Daemon.trim(types: types) }
    self.trimmer = trimmer
    receiver = try Receiver(
      device: device, store: store, policy: ReceivePolicy(types: gate), configuration: configuration,
      gatekeeper: gatekeeper, events: received, connectionsChanged: { trimmer.connections(active: $0) })
    localSend = try LocalSendService.make(
      options: options, settings: settings, device: device,
      context: LocalSendContext(
        store: store, reserve: DiskReserve(bytes: configuration.reserveBytes, store: store), gatekeeper: gatekeeper,
        policy: { ReceivePolicy(types: types.value) }, emit: received, transfers: receiver.transfers,
        askBudget: receiver.askBudget, connectionsChanged: { trimmer.connections(active: $0) }),
      note: note)
  }

  /// Cleans staging (the home's daemon lock is held from `init`), starts receiving and serving
  /// the control socket, and tells systemd it is ready.
  package func start() throws(ShareError) {
    noteFallback(of: gatekeeper.mode)
    let kept = store.cleanStaging(expiry: options.stagingExpiry)
    if kept > 0 { note("kept \(kept) interrupted transfer(s) in staging for resuming") }
    let server = try ControlServer(paths: paths) { [weak self] request in
      self?.handle(request) ?? ControlResponse(ok: false, error: "the daemon is stopping")
    }
    control = server
    server.start()
    sweep = Self.sweeping(store, receiver: receiver, every: options.stagingSweep, expiry: options.stagingExpiry)
    receiver.start()
    localSend?.start()
    updateAdvertisement()
    SystemdNotify.send("READY=1\nSTATUS=receiving (\(gatekeeper.mode.effective().rawValue)) on port \(receiver.port)")
    // Start-up ran once: its pages can go (and what transfers bring in, once they end: `trimmer`).
    Daemon.trim(types: types)
  }

  /// A timer that removes, every `interval`, the parts kept longer than `expiry` that no
  /// session is resuming.
  private static func sweeping(
    _ store: InboxStore, receiver: Receiver, every interval: DispatchTimeInterval, expiry: TimeInterval
  ) -> any DispatchSourceTimer {
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "share.staging-sweep"))
    timer.schedule(deadline: .now() + interval, repeating: interval)
    timer.setEventHandler { store.expireResumable(expiry: expiry, receiving: receiver.receivingStems) }
    timer.resume()
    return timer
  }

  /// Sets malloc's bounds for a long-lived receiver, before any thread starts.
  private static func tuneMalloc() {
    // A thread per connection: with malloc's default of 8 arenas per core, 50 senders at once
    // left the daemon holding 17% more anonymous memory than with one arena per core.
    CurrentProcess.limitMallocArenas(max(2, ProcessInfo.processInfo.activeProcessorCount))
    // A fixed bound: glibc's own raising of it (up to 32 MiB) left 8 MiB of freed blocks in the
    // arena of a session receiving 5,000 small files. It sits above what libmagic allocates and
    // frees in every call on a 64 KiB head (`ContentSniffer.headLength`): (65,536 + 1) × 8 bytes
    // of calloc for its text encoding check, twice, and 384 KiB for the head as UTF-8. Under
    // glibc's starting 128 KiB each of those was a mapping of its own, mapped, faulted in, zeroed
    // and unmapped (a TLB shootdown on every core) several times per head of text: a sixth of
    // the receiver's CPU for a folder of real files. In the arena they are neither mapped nor
    // unmapped; once heads are that large, the arena's top is kept too (`TypeGate`).
    CurrentProcess.fixMallocMapThreshold(576 << 10)
  }

  /// Gives back the pages of the program, its libraries and libmagic's databases, and the free
  /// heap: what is used again comes back.
  private static func trim(types: CurrentTypeGate) {
    CurrentProcess.trimFilePages()
    types.value.sniffer.releaseDatabasePages()
    CurrentProcess.trimHeap()
  }

  /// Publishes the service unless the mode is `off`, withdraws it when it is: called at start
  /// and whenever the mode changes.
  private func updateAdvertisement() {
    let wanted = gatekeeper.mode.effective() != .off
    let current = advertiser.withLock { $0 }
    if wanted == (current != nil) { return }
    if !wanted {
      current?.stop()
      advertiser.withLock { $0 = nil }
      advertisement.withLock { $0 = (nil, "withdrawn (receive mode off)") }
      note("withdrew the advertisement (receive mode off)")
      return
    }
    do {
      let service = try ServiceAdvertiser(name: device.name, port: receiver.port, txt: AdvertisedKeys.record(for: device))
      advertiser.withLock { $0 = service }
      advertisement.withLock { $0 = (nil, "registering") }
      let launched = self.launched
      Task { [weak self] in
        for await event in service.events {
          guard let self else { return }
          switch event {
          case .registered(let name):
            advertisement.withLock { $0 = (name, "advertised") }
            let elapsed = ContinuousClock.now - launched
            note("advertised as \(Escaping.escaped(name)) on _share._tcp (\(Int(elapsed / .milliseconds(1))) ms after start)")
          case .collision(let old, let new):
            note("the name \(Escaping.escaped(old)) is taken on this network; advertising as \(Escaping.escaped(new))")
          case .daemonUnavailable(let why):
            advertisement.withLock { $0 = (nil, "Avahi unavailable; retrying") }
            note("cannot advertise: \(why); still receiving on port \(receiver.port), retrying")
          case .daemonReturned:
            note("Avahi is back; advertising again")
          case .failed(let error):
            advertisement.withLock { $0 = (nil, "failed: \(error)") }
            note("advertising failed: \(error); still receiving on port \(receiver.port)")
          }
        }
      }
      try service.start()
    } catch {
      advertisement.withLock { $0 = (nil, "failed: \(error)") }
      note("cannot advertise: \(error); still receiving on port \(receiver.port)")
    }
  }

  /// Re-reads the declarations and the contacts; a broken file keeps the old one and says why.
  /// Returns why the declarations were kept, or nil when they were reloaded.
  @discardableResult
  package func reload() -> String? {
    var kept: String? = nil
    do {
      let gate = try TypeGate.load(paths: paths, receiverName: device.name, keepsCutDatabase: true, keepsSniffingMemory: true)
      types.replace(with: gate)
      receiver.update(policy: ReceivePolicy(types: gate))
      note("reloaded type declarations (\(gate.source))")
    } catch {
      kept = "\(error)"
      note("kept the previous type declarations: \(error)")
    }
    do {
      gatekeeper.set(trust: try Contacts(paths: paths).trusted())
      note("reloaded contacts")
    } catch {
      note("kept the previous contacts: \(error)")
    }
    return kept
  }

  /// Stops: no new connections or asks, transfers in flight get the grace period, then the
  /// rest are cancelled with their staging kept for resuming.
  package func stop() {
    SystemdNotify.send("STOPPING=1")
    // Withdraw first, so nobody new finds a daemon that is going away.
    advertiser.withLock { $0 }?.stop()
    advertiser.withLock { $0 = nil }
    control?.stop()
    sweep?.cancel()
    trimmer.stop()
    localSend?.stop()
    let cancelled = receiver.stop(grace: options.grace)
    if cancelled > 0 {
      // Only a file of known size can resume (review 49: said of standard input too).
      note("cancelled \(cancelled) transfer(s) after the grace period; what they received of files that can resume is kept for resuming")
    }
    hooks.drain()
    homeLock?.unlock()
  }

  /// The daemon's state for `share status`.
  package var status: DaemonStatus {
    let mode = gatekeeper.mode
    let advertised = advertisement.withLock { $0 }
    let parts = store.resumableParts(receiving: receiver.receivingStems)
    return DaemonStatus(
      name: device.name, id: device.fingerprint.hex, pid: getpid(), port: receiver.port, mode: mode.effective(),
      modeUntil: mode.effective() == .everyone ? mode.until : nil, advertisedAs: advertised.name,
      advertising: advertised.state, inbox: paths.inbox.path, declarations: types.value.source,
      startedAt: startedAt, transfers: receiver.transfers.all, pending: gatekeeper.pending, localsend: localSend?.status,
      partsKept: parts.count, partsKeptBytes: parts.bytes, partsKeptDays: Int(options.stagingExpiry / 86400))
  }

  /// Changes the receive mode now and for the next start.
  package func set(mode: ModeSetting) throws(ShareError) {
    gatekeeper.set(mode: mode)
    updateAdvertisement()
    note("receive mode: \(mode.mode.rawValue)\(mode.until.map { " until \(ISO8601DateFormatter().string(from: $0))" } ?? "")")
    noteFallback(of: mode)
    var settings = try Settings.load(from: paths.settings)
    settings.receiveMode = mode.mode
    settings.receiveUntil = mode.until
    try settings.save(to: paths.settings)
  }

  /// Says in the log when `everyone --for` runs out and the mode becomes contacts (review 18:
  /// it happened silently), unless the mode was changed again since.
  private func noteFallback(of mode: ModeSetting) {
    guard mode.mode == .everyone, let until = mode.until, until > Date() else { return }
    DispatchQueue.global().asyncAfter(wallDeadline: .now() + until.timeIntervalSinceNow) { [weak self] in
      guard let self, self.gatekeeper.mode == mode else { return }
      self.note("receive mode: contacts (everyone until \(ISO8601DateFormatter().string(from: until)) ran out)")
    }
  }

  private func handle(_ request: ControlRequest) -> ControlResponse {
    switch request {
    case .status:
      return ControlResponse(ok: true, status: status)
    case .requests:
      return ControlResponse(ok: true, requests: gatekeeper.pending)
    case .accept(let id, let trust):
      return decide(id, accept: true, trust: trust)
    case .decline(let id):
      return decide(id, accept: false, trust: false)
    case .receive(let mode, let seconds):
      let until = seconds.map { Date().addingTimeInterval($0) }
      do {
        try set(mode: ModeSetting(mode: mode, until: until))
      } catch {
        // The running daemon has the new mode all the same (`share receive off` must stop
        // receiving at once, whatever the disk): said so (review 32: only the error was).
        let now = "\(mode.rawValue)\(until.map { " until \(ISO8601DateFormatter().string(from: $0))" } ?? "")"
        return ControlResponse(
          ok: false, error: "the running daemon now receives: \(now); but this is not kept for its next start: \(error)",
          status: status)
      }
      return ControlResponse(ok: true, status: status)
    case .localSendPeers(let seconds):
      guard let localSend else { return ControlResponse(ok: false, error: "LocalSend is off (share daemon --localsend)") }
      var response = ControlResponse(ok: true)
      response.localsendPeers = localSend.peers(wait: .milliseconds(Int(min(max(seconds ?? 1, 0), 10) * 1000)))
      return response
    case .reload:
      if let kept = reload() {
        return ControlResponse(ok: false, error: "the daemon kept its previous type declarations: \(kept)", status: status)
      }
      return ControlResponse(ok: true, status: status)
    }
  }

  /// Accepts or declines a waiting ask; with `trust`, its sender then becomes a contact. An ask
  /// that is not waiting (decided, timed out, or withdrawn because its sender went away) is an
  /// error, and nobody is trusted.
  private func decide(_ id: Int, accept: Bool, trust: Bool) -> ControlResponse {
    // A pairing trusts too, once both people compared the code: the same checks apply.
    if accept, let ask = gatekeeper.pending.first(where: { $0.id == id }), trust || ask.pairingCode != nil,
      let why = checkedAgainstContactsOnDisk(ask).whyNotTrusted
    {
      let instead = ask.pairingCode == nil ? "accept it without --trust" : "decline it ('share decline \(id)')"
      return ControlResponse(ok: false, error: "ask \(id) was not accepted: \(why); \(instead)")
    }
    guard let decided = gatekeeper.decide(id, accept: accept) else {
      if let gone = gatekeeper.withdrawn(id) {
        let trusted = trust ? "; nobody was trusted" : ""
        return ControlResponse(
          ok: false, error: "ask \(id) from \(gone.peerName) is gone: the sender went away before it was answered\(trusted)")
      }
      return ControlResponse(ok: false, error: "no ask \(id) is waiting (see 'share requests')")
    }
    note("\(accept ? "accepted" : "declined") ask \(id) from \(decided.peerName)")
    if accept, trust, let fingerprint = Fingerprint(hex: decided.peerId) {
      let contacts = Contacts(paths: paths)
      do {
        // Under the store's lock, as it is now: never a second contact of one name.
        if let other = try contacts.trustUnlessNameTaken(TrustedPeer(id: fingerprint, name: decided.peerName)) {
          return ControlResponse(
            ok: false,
            error: "accepted ask \(id), but did not trust \(decided.peerName): your contact \(other.name) is called that")
        }
        gatekeeper.set(trust: try contacts.trusted())
      } catch {
        return ControlResponse(ok: false, error: "accepted ask \(id), but could not trust \(decided.peerName): \(error)")
      }
    }
    return ControlResponse(ok: true, decided: decided)
  }

  /// `ask` as the contacts on disk see it now: the daemon's copy is as of its start or last
  /// reload, and a `trust.json` restored by hand since would not say that a contact already has
  /// the asker's name (review 18: `accept --trust` then made a second contact of that name).
  private func checkedAgainstContactsOnDisk(_ ask: PendingAsk) -> PendingAsk {
    var checked = ask
    guard ask.posedAsId == nil, let fingerprint = Fingerprint(hex: ask.peerId),
      let contact = try? Contacts(paths: paths).trusted().contact(sharingNameWith: ask.peerName, other: fingerprint)
    else { return ask }
    checked.posedAsId = contact.id.hex
    checked.posedAs = contact.name
    return checked
  }
}
