import ShareKit

extension SendReporter {
  /// How a receiver that said `name` is shown: as the Inbox shows a sender (a contact by its name
  /// here, a stranger calling itself like a contact marked), and a device reached by a name this
  /// home knows it by as that name, with what it calls itself (review 36: a device known as
  /// `lab-b`, renamed `lab` while another `lab` is nearby, was "Connected to lab … stored in
  /// lab's Inbox").
  static func label(_ name: PeerText, contactName: PeerText?, posedAs: PeerText?, endpoint: Endpoint) -> String {
    if contactName == nil, posedAs == nil, endpoint.localSend == nil, let known = endpoint.rememberAs,
      !KnownIdentities.sameName(known, name.unescaped)
    {
      return "\(PeerText(known)) (calls itself \(name))"
    }
    return SenderLabel.who(name, contactName: contactName, posedAs: posedAs)
  }
}
