import Glibc
import System
import Testing

@Suite struct ErrnoTests {
  @Test func describesItselfWithTheCLibrarysText() {
    #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory")
    #expect(Errno.noSpace.description == "No space left on device")
    #expect(Errno(rawValue: EACCES).description == "Permission denied")
    #expect(Errno(rawValue: 99_999).description == "Unknown error 99999")
  }

  @Test func namedCodesAreTheCValues() {
    #expect(Errno.interrupted.rawValue == EINTR)
    #expect(Errno.fileExists.rawValue == EEXIST)
    #expect(Errno.resourceTemporarilyUnavailable.rawValue == EWOULDBLOCK)
  }

  @Test func currentReadsErrnoAfterAFailedCall() {
    #expect(open("/nonexistent/\(#line)", O_RDONLY) == -1)
    #expect(Errno.current == .noSuchFileOrDirectory)
  }

  @Test func matchesInCatchClauses() {
    func fail() throws { throw Errno.fileExists }
    var caught = ""
    do {
      try fail()
    } catch Errno.noSuchFileOrDirectory {
      caught = "missing"
    } catch Errno.fileExists {
      caught = "exists"
    } catch {
      caught = "other"
    }
    #expect(caught == "exists")
  }
}
