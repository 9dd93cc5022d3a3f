import ActivationDiscoveryProtocol
import Foundation
import Testing

@testable import ActivationDiscoveryServer

/// The OpenAPI document the service serves against the protocol module: every operation the
/// document names exists in the protocol with the same method and path, and the other way round.
/// schemathesis then holds the running service to the document (`OpenAPITests`).
@Suite("The protocol module and the OpenAPI document describe the same API")
struct ProtocolDocumentTests {
    /// `operationId: method path` of every operation in the document (paths at two spaces, methods
    /// at four; the document is written that way and this reader needs no YAML library).
    static func documentedOperations() -> [String: String] {
        let text = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)
        var operations: [String: String] = [:]
        var path: String?
        var method: String?
        var inPaths = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            if inPaths, let first = line.first, first != " " { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"),
                ["get", "put", "post", "delete", "patch", "head", "options"].contains(
                    line.trimmingCharacters(in: .whitespaces).dropLast())
            {
                method = line.trimmingCharacters(in: .whitespaces).dropLast().uppercased()
            } else if line.hasPrefix("      operationId: "), let path, let method {
                operations[String(line.dropFirst("      operationId: ".count))] = "\(method) \(path)"
            }
        }
        return operations
    }

    @Test("every admin operation of the document is an AdminOperation with its method and template, and no other")
    func adminOperations() {
        let documented = Self.documentedOperations().filter { $0.value.contains(AdminOperation.prefix + "/") }
        let protocolOperations = Dictionary(
            uniqueKeysWithValues: AdminOperation.allCases.map { ($0.rawValue, "\($0.method) \($0.template)") })
        #expect(documented == protocolOperations)
        #expect(documented.count == 13)
    }

    @Test("the lookup, settingsExchange and operations paths of the document are the protocol's")
    func publicPaths() {
        let documented = Self.documentedOperations()
        #expect(documented["lookupByEmail"] == "GET \(LookupCall.emailPathTemplate)")
        #expect(documented["lookupByCode"] == "GET \(LookupCall.codePathTemplate)")
        #expect(documented["clientPolicies"] == "GET \(DiscoveryRoute.settingsTemplate)")
        #expect(documented["health"] == "GET \(DiscoveryRoute.healthPath)")
        #expect(documented["ready"] == "GET \(DiscoveryRoute.readyPath)")
        #expect(documented["metrics"] == "GET \(DiscoveryRoute.metricsPath)")
        #expect(documented["openAPI"] == "GET \(DiscoveryRoute.openAPIPath)")
        #expect(documented.count == 20, "\(documented.keys.sorted())")
    }

    @Test("a code order is checked as it is decoded: ranges, types and unknown keys are refused with the key")
    func codeOrder() throws {
        let order = try AdminBodyError.decode(
            CodeOrder.self, from: Array(#"{"document":"a.json","count":3,"label":""}"#.utf8))
        #expect(order == CodeOrder(document: "a.json", count: 3))
        for (body, keyPath) in [
            (#"{"document":"a.json","count":1001}"#, "count"), (#"{"document":"a.json","expiresIn":59}"#, "expiresIn"),
            (#"{"document":"a.json","uses":"2"}"#, "uses"), (#"{"document":7}"#, "document"), (#"{}"#, "document"),
            (#"{"document":"a.json","label":"a\u0007"}"#, "label"), (#"{"document":"a.json","lable":"x"}"#, "lable"),
        ] {
            let error = #expect(throws: AdminBodyError.self, "\(body)") {
                try AdminBodyError.decode(CodeOrder.self, from: Array(body.utf8))
            }
            #expect(error?.keyPath == keyPath, "\(body): \(error?.message ?? "")")
        }
        let notJSON = #expect(throws: AdminBodyError.self) {
            try AdminBodyError.decode(CodeOrder.self, from: Array("{".utf8))
        }
        #expect(notJSON?.message == "not JSON" && notJSON?.keyPath == nil)
        let overSize = Array(repeating: UInt8(ascii: " "), count: AdminJSON.maxRequestBytes + 1)
        #expect(throws: AdminBodyError.self) { try AdminBodyError.decode(CodeOrder.self, from: overSize) }
    }

    @Test("JSONValue keeps what it reads: numbers, strings, nesting")
    func jsonValue() throws {
        let text = #"{"a":[1,2.5,"x",true,null],"b":{"c":"false"}}"#
        let value = try AdminJSON.decoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(value.jsonText == text)
        #expect(value.objectValue?["b"] == .object(["c": .string("false")]))
    }
}
