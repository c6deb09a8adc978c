import Foundation
@testable import Isolation
import Testing

/// What an intermittent suspect's follow-ups move (``IsolationEvidence/confounding(_:subject:in:)``, docs/ISOLATE.md,
/// "The algorithm", step 6).
@Suite("Isolation: the values an intermittent suspect's follow-ups move")
struct IsolationConfoundingTests {
    static let subject = IsolationSessionTests.subject

    static func job(_ c: [String: String], _ verdict: Verdict, followUp: Bool = false) -> Observation {
        Observation(subject: subject, configuration: c, verdict: verdict, jobID: UUID().uuidString, followUp: followUp)
    }

    @Test("a single value: the values of its failing source jobs whose pair with it no job passed; a pair: every value")
    func singleValue() {
        let jobs = [
            Self.job(["lang": "ar", "net": "edge", "size": "narrow"], .failed),
            Self.job(["lang": "ar", "net": "wifi", "size": "wide"], .flaky),
            Self.job(["lang": "ar", "net": "wifi", "size": "narrow"], .passed),  // ar + wifi and ar + narrow passed
            Self.job(["lang": "ar", "net": "offline", "size": "tall"], .passed, followUp: true),
            Self.job(["lang": "en", "net": "edge", "size": "wide"], .passed),  // no ar: says nothing of its pairs
        ]
        let ar = IsolationEvidence.confounding(Combination(["lang": "ar"]), subject: Self.subject, in: jobs)
        #expect(ar == [["lang": "ar", "net": "edge"], ["lang": "ar", "size": "wide"]])
        let pair = IsolationEvidence.confounding(Combination(["lang": "ar", "net": "wifi"]), subject: Self.subject, in: jobs)
        #expect(pair == [["lang": "ar", "net": "wifi", "size": "wide"]])
        // Another subject's jobs, and follow-ups that failed, are not the suspect's source evidence.
        let other = jobs + [Observation(subject: Subject(scenario: "other", registry: "noop"), configuration: ["lang": "ar", "net": "offline", "size": "tall"],
                                        verdict: .failed, jobID: "o", followUp: false),
                            Self.job(["lang": "ar", "net": "offline", "size": "narrow"], .failed, followUp: true)]
        #expect(IsolationEvidence.confounding(Combination(["lang": "ar"]), subject: Self.subject, in: other) == ar)
    }

    @Test("a single value: also the values every source job of it that shows intermittency holds, from two such jobs up")
    func sharedByIntermittentJobs() {
        // ar + edge is a flaky pair: three of its four jobs failed an attempt, one passed, so it is no confounding pair.
        var jobs = [
            Self.job(["lang": "ar", "net": "edge", "size": "narrow"], .flaky),
            Self.job(["lang": "ar", "net": "edge", "size": "wide"], .flaky),
            Self.job(["lang": "ar", "net": "edge", "size": "tall"], .passed),
            Self.job(["lang": "ar", "net": "wifi", "size": "narrow"], .passed),
            Self.job(["lang": "ar", "net": "wifi", "size": "wide"], .passed),
        ]
        let ar = Combination(["lang": "ar"])
        #expect(IsolationEvidence.sharedByIntermittentJobs(ar, subject: Self.subject, in: jobs) == ["net": "edge"])
        #expect(IsolationEvidence.confounding(ar, subject: Self.subject, in: jobs) == [["lang": "ar", "net": "edge"], ["lang": "ar", "net": "edge"]])
        // A failing job whose configuration also passed shows intermittency; one that only failed does not.
        jobs.append(Self.job(["lang": "ar", "net": "wifi", "size": "wide"], .failed))
        #expect(IsolationEvidence.sharedByIntermittentJobs(ar, subject: Self.subject, in: jobs).isEmpty)
        jobs.removeLast()
        jobs.append(Self.job(["lang": "ar", "net": "offline", "size": "tall"], .failed))
        #expect(IsolationEvidence.sharedByIntermittentJobs(ar, subject: Self.subject, in: jobs) == ["net": "edge"])
        // One such job shares every value with itself: nothing to tell.
        #expect(IsolationEvidence.sharedByIntermittentJobs(ar, subject: Self.subject, in: Array(jobs.dropFirst())).isEmpty)
    }
}
