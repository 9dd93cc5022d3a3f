extension ConfigurationDocument {
    /// The document as a value in the cockpit's key layout: `host`, `port`, `protocol`, `appID`,
    /// `appVersion`, `auth` (each item `type`, `requireOtp`, `config`), then the other keys. A base
    /// path that `host`/`port`/`protocol` cannot say is written as `serviceURL` instead.
    ///
    /// - Parameter includeSecrets: write OAuth passcodes as they are (for a code that must carry
    ///   them); otherwise each is written as `<redacted>`, for showing to people.
    public func value(includeSecrets: Bool = true) -> ConfigurationValue {
        var object = ConfigurationObject()
        if basePath.isEmpty {
            object["host"] = .string(host)
            object["port"] = .integer(port)
            object["protocol"] = .string(scheme)
        } else {
            object["serviceURL"] = .string(baseURL)
        }
        if let appID { object["appID"] = .string(appID) }
        if let appVersion { object["appVersion"] = .string(appVersion) }
        if let multiUser { object["multiUser"] = .bool(multiUser) }
        if let certificateProvider { object["certificate_provider"] = .string(certificateProvider) }
        object["auth"] = .array(auth.map { $0.value(includeSecrets: includeSecrets) })
        for (key, value) in otherKeys { object[key] = value }
        return .object(object)
    }

    /// Canonical compact JSON: the form ``value(includeSecrets:)`` describes, without white space.
    /// Reading it back gives an equal document.
    public func canonicalJSON(includeSecrets: Bool = true) -> String {
        JSONWriter.compact(value(includeSecrets: includeSecrets))
    }
}

extension AuthItem {
    func value(includeSecrets: Bool) -> ConfigurationValue {
        var config = ConfigurationObject()
        switch method {
        case .oauth2(let settings):
            config["oauth2.authorizationEndpoint"] = .string(settings.authorizationEndpoint)
            config["oauth2.tokenEndpoint"] = .string(settings.tokenEndpoint)
            if let endUserUI = settings.endUserUI { config["oauth2.endUserUI"] = .string(endUserUI) }
            if let xsuaa = settings.xsuaaAuthorizationEndpoint {
                config["oauth2.xsuaaAuthorizationEndpoint"] = .string(xsuaa)
            }
            if let device = settings.deviceAuthorizationEndpoint {
                config["oauth2.deviceAuthorizationEndpoint"] = .string(device)
            }
            if let revocation = settings.revocationEndpoint {
                config["oauth2.revocationEndpoint"] = .string(revocation)
            }
            if let issuer = settings.issuer { config["oauth2.issuer"] = .string(issuer) }
            config["oauth2.clients"] = .array(settings.clients.map { $0.value(includeSecrets: includeSecrets) })
        case .saml2(let settings):
            config["saml2.web.post.authchallengeheader.name"] = .string(settings.challengeHeaderName)
            config["saml2.web.post.finish.endpoint.uri"] = .string(settings.finishEndpointPath)
            config["saml2.web.post.finish.endpoint.redirectparam"] = .string(settings.finishEndpointRedirectParameter)
        case .certificate(let provider):
            if let provider { config["provider"] = .string(provider) }
        case .basic, .apiKey, .unknown:
            break
        }
        for (key, value) in otherConfig { config[key] = value }
        var object: ConfigurationObject = ["type": .string(method.typeName), "requireOtp": .bool(requireOtp)]
        if !config.isEmpty || { if case .oauth2 = method { true } else { false } }() {
            object["config"] = .object(config)
        }
        return .object(object)
    }
}

extension OAuth2Client {
    /// `{"clientID", "redirectURL", "grantType", "scope"?, "passcode"?, "clientSecret"?}`; without
    /// secrets the passcode and the client secret are `<redacted>`.
    func value(includeSecrets: Bool) -> ConfigurationValue {
        var object: ConfigurationObject = [
            "clientID": .string(clientID), "redirectURL": .string(redirectURL),
            "grantType": .string(grantType.rawValue),
        ]
        if let scope { object["scope"] = .string(scope) }
        if let passcode { object["passcode"] = .string(includeSecrets ? passcode : "<redacted>") }
        if let clientSecret { object["clientSecret"] = .string(includeSecrets ? clientSecret : "<redacted>") }
        return .object(object)
    }
}
