// Escaping for the HTML and XML writers. Hostnames, reasons, argv and driver strings come from
// the journal and so from other machines: none of them may open a tag, close an attribute, or
// make the file something an XML parser refuses.
#pragma once
#include <string>
#include <string_view>

namespace ga::markup {

// Appends s as text or as a quoted attribute value, valid in HTML5 and XML 1.0: & < > " ' as
// character references; tab, newline and carriage return as &#9; &#10; &#13; (so an attribute
// keeps its line breaks); other control characters, U+FFFE/U+FFFF and bytes that are not
// valid UTF-8 become U+FFFD.
void append_escaped(std::string& out, std::string_view s);
std::string escaped(std::string_view s);

}  // namespace ga::markup
