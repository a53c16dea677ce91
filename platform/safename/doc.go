// Package safename keeps names that come from outside — an OAuth
// client's name on the approval page, a file's name on a download — from
// reading differently from what they are, or from escaping where they
// are put.
//
// Display removes what cannot be shown honestly: control characters
// (CR, LF, NUL, …) and format characters, which include the bidi
// controls U+202A–U+202E, U+2066–U+2069, U+200E, U+200F and U+061C —
// "\u202ecsv.exe" shows as "exe.vsc" but is an .exe. File refuses such a
// file name instead of altering it, and refuses path separators and
// "..": a file name is one name, never a path. ContentDisposition puts a
// file name in an RFC 6266 header.
package safename
