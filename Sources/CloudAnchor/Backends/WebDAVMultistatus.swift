import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The entries of a WebDAV PROPFIND multistatus answer.
///
/// Invariant: only properties from a `200` propstat are read; a document that is not a complete
/// `multistatus` is `CloudError.transport`.
struct WebDAVMultistatus {
    /// One `<response>` of the answer.
    struct Entry: Hashable {
        /// The href, percent-decoded.
        var href: String
        /// Whether the resource is a collection.
        var isCollection = false
        /// `getcontentlength`.
        var size: Int64 = 0
        /// `getetag`.
        var etag: String?
    }

    /// The PROPFIND body asking for what the backend needs.
    static let request = Data("""
        <?xml version="1.0" encoding="utf-8"?>
        <d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/><d:getcontentlength/><d:getetag/></d:prop></d:propfind>
        """.utf8)

    /// Parses `data`.
    static func parse(_ data: Data) throws(CloudError) -> [Entry] {
        let parser = XMLParser(data: data)
        let collector = Collector()
        parser.shouldProcessNamespaces = true
        parser.delegate = collector
        guard parser.parse(), collector.complete else { throw .transport }
        return collector.entries
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var entries: [Entry] = []
        var complete = false
        private var current: Entry?
        private var propstat: Entry?
        private var propstatOK = false
        private var text = ""

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            text = ""
            switch elementName {
            case "response": current = Entry(href: "")
            case "propstat":
                propstat = current
                propstatOK = false
            case "collection": propstat?.isCollection = true
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text += string
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?) {
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch elementName {
            case "href": current?.href = value.removingPercentEncoding ?? value
            case "getcontentlength": propstat?.size = Int64(value) ?? 0
            case "getetag": propstat?.etag = value
            case "status": propstatOK = value.contains(" 200 ")
            case "propstat":
                if propstatOK, let propstat { current = propstat }
                propstat = nil
            case "response":
                if let current { entries.append(current) }
                current = nil
            case "multistatus": complete = true
            default: break
            }
            text = ""
        }
    }
}
