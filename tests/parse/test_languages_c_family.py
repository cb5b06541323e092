"""C, C++, C# and Objective-C on real source (tests/fixtures/languages/<lang>/, see each SOURCE.txt).

Each test pins the units (kind, qualified name, lines) of a real file, some
signatures and docstrings, and every edge kind the language has; the headers
also check that ``.h`` is decided by content (C for cmark's buffer.h, C++ for
GoogleTest's, Objective-C for Cordova's).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from hookgraph.parse import parse_file
from hookgraph.parse.units import CodeUnit, ParsedFile

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "languages"


@pytest.fixture(autouse=True)
def _no_parse_fallback(caplog):
    """parse_file falls back to a bare file unit on internal errors; that must not happen here."""
    with caplog.at_level(logging.WARNING, logger="hookgraph.parse"):
        yield
    assert not [r for r in caplog.records if r.name == "hookgraph.parse"]


def parsed(lang: str, rel: str) -> ParsedFile:
    pf = parse_file(rel, (FIXTURES / lang / rel).read_bytes())
    assert pf is not None
    return pf


def units_of(pf: ParsedFile) -> set[tuple[str, str, int, int]]:
    return {(u.kind, u.qualname, u.start_line, u.end_line) for u in pf.units if u.kind != "file"}


def unit(pf: ParsedFile, qualname: str, start: int | None = None) -> CodeUnit:
    (found,) = [u for u in pf.units if u.qualname == qualname and (start is None or u.start_line == start)]
    return found


def edges(pf: ParsedFile, kind: str, source: str | None = None) -> set[tuple[str, str, str]]:
    return {(e.source, e.target, e.target_full) for e in pf.edges
            if e.kind == kind and (source is None or e.source == source)}


# --------------------------------------------------------------------------- C


def test_c_header_and_source_from_cmark() -> None:
    header = parsed("c", "buffer.h")
    assert header.language == "c"  # `extern "C"` under #ifdef __cplusplus does not make it C++
    assert units_of(header) == {
        ("struct", "cmark_strbuf", 16, 20),  # typedef struct { ... } cmark_strbuf;
        ("function", "CMARK_BUF_INIT", 24, 25),  # a function-like macro
        ("function", "cmark_strbuf_init", 33, 35),  # documented prototypes; undocumented ones are left out
        ("function", "cmark_strbuf_grow", 40, 41),
        ("function", "cmark_strbuf_cstr", 62, 64),
        ("function", "cmark_strbuf_at", 66, 66),
    }
    assert unit(header, "cmark_strbuf").signature == "typedef struct cmark_strbuf"
    assert unit(header, "cmark_strbuf_init").docstring.startswith("Initialize a cmark_strbuf structure.")
    assert unit(header, "cmark_strbuf_grow").docstring == "Grow the buffer to hold at least `target_size` bytes."
    assert {t for _s, t, _f in edges(header, "imports")} == {
        "stddef.h", "stdarg.h", "string.h", "limits.h", "stdint.h", "config.h", "cmark-gfm.h",
    }

    source = parsed("c", "buffer.c")
    names = {u.qualname for u in source.units if u.kind == "function"}
    assert len(names) == 24 and {"MIN", "cmark_strbuf_init", "S_strbuf_grow_by", "cmark_strbuf_unescape"} <= names
    grow = unit(source, "cmark_strbuf_grow")
    assert (grow.start_line, grow.end_line) == (38, 60)
    assert grow.signature == "void cmark_strbuf_grow(cmark_strbuf *buf, bufsize_t target_size)"
    assert unit(source, "cmark_strbuf_normalize_whitespace").docstring.startswith(
        "Destructively modify string, collapsing consecutive")
    assert unit(source, "cmark_strbuf_detach").signature.startswith("unsigned char *cmark_strbuf_detach(")
    assert {("cmark_strbuf_grow", "realloc", "buf->mem->realloc"), ("cmark_strbuf_grow", "abort", "abort"),
            ("cmark_strbuf_sets", "cmark_strbuf_set", "cmark_strbuf_set")} <= edges(source, "calls")
    assert ("buffer.c", "buffer.h", "buffer.h") in edges(source, "imports")
    assert ("buffer.c", "contains", "cmark_strbuf_grow") in {(e.source, e.kind, e.target) for e in source.edges}


# --------------------------------------------------------------------------- C++


def test_cpp_header_decided_by_content_with_namespaces_and_export_macros() -> None:
    pf = parsed("cpp", "include/gtest/gtest-test-part.h")
    assert pf.language == "cpp"
    quals = {u.qualname: u for u in pf.units}
    # `class GTEST_API_ TestPartResult {`: the export macro is masked for the parser
    result = quals["testing::TestPartResult"]
    assert (result.kind, result.start_line, result.end_line, result.parent) == ("class", 52, 123, "testing")
    assert result.signature == "class GTEST_API_ TestPartResult"
    assert result.docstring.startswith("A copyable object representing the result of a test part")
    assert quals["testing::TestPartResult::Type"].kind == "enum"
    failed = quals["testing::TestPartResult::failed"]
    assert (failed.kind, failed.start_line, failed.parent) == ("method", 106, "testing::TestPartResult")
    assert failed.docstring == "Returns true if and only if the test part failed."
    # documented in-class declarations are methods; `operator<<` at namespace level is a function
    assert quals["testing::TestPartResultArray::Append"].signature == "void Append(const TestPartResult& result)"
    assert quals["testing::operator<<"].kind == "function"
    helper = quals["testing::internal::HasNewFatalFailureHelper"]
    assert (helper.start_line, helper.end_line) == (168, 182)
    assert edges(pf, "inherits") == {("testing::internal::HasNewFatalFailureHelper",
                                      "TestPartResultReporterInterface", "TestPartResultReporterInterface")}
    assert {t for _s, t, _f in edges(pf, "imports")} == {
        "iosfwd", "vector", "gtest/internal/gtest-internal.h", "gtest/internal/gtest-string.h"}
    assert ("testing::TestPartResult::failed", "fatally_failed", "fatally_failed") in edges(pf, "calls")


def test_cpp_out_of_line_definitions_take_their_written_scope() -> None:
    pf = parsed("cpp", "src/gtest-test-part.cc")
    assert units_of(pf) == {
        ("method", "testing::TestPartResult::ExtractSummary", 44, 47),
        ("function", "testing::operator<<", 50, 61),
        ("method", "testing::TestPartResultArray::Append", 64, 66),
        ("method", "testing::TestPartResultArray::GetTestPartResult", 69, 76),  # returns a reference
        ("method", "testing::TestPartResultArray::size", 79, 81),
        ("method", "testing::internal::HasNewFatalFailureHelper::HasNewFatalFailureHelper", 85, 90),
        ("method", "testing::internal::HasNewFatalFailureHelper::~HasNewFatalFailureHelper", 92, 95),
        ("method", "testing::internal::HasNewFatalFailureHelper::ReportTestPartResult", 97, 101),
    }
    summary = unit(pf, "testing::TestPartResult::ExtractSummary")
    assert summary.parent == "testing::TestPartResult"
    assert summary.docstring == "Gets the summary of the failure message by omitting the stack trace\nin it."
    assert summary.signature == "std::string TestPartResult::ExtractSummary(const char* message)"
    calls = edges(pf, "calls")
    assert ("testing::TestPartResult::ExtractSummary", "strstr", "strstr") in calls
    assert ("testing::TestPartResultArray::GetTestPartResult", "Abort", "internal::posix::Abort") in calls
    assert ("testing::TestPartResultArray::Append", "push_back", "array_.push_back") in calls
    imports = {t for _s, t, _f in edges(pf, "imports")}
    assert imports == {"gtest/gtest-test-part.h", "gtest/internal/gtest-port.h", "src/gtest-internal-inl.h",
                       "internal::GetUnitTestImpl"}  # #include and `using`


def test_cpp_classes_inheritance_and_virtual_methods() -> None:
    pf = parsed("cpp", "samples/prime_tables.h")
    assert units_of(pf) == {
        ("class", "PrimeTable", 40, 50),
        ("method", "PrimeTable::~PrimeTable", 42, 42),
        ("method", "PrimeTable::IsPrime", 45, 45),  # pure virtual, documented
        ("method", "PrimeTable::GetNextPrime", 49, 49),
        ("class", "OnTheFlyPrimeTable", 53, 73),
        ("method", "OnTheFlyPrimeTable::IsPrime", 55, 64),
        ("method", "OnTheFlyPrimeTable::GetNextPrime", 66, 72),
        ("class", "PreCalculatedPrimeTable", 77, 122),
        ("method", "PreCalculatedPrimeTable::PreCalculatedPrimeTable", 80, 83),
        ("method", "PreCalculatedPrimeTable::~PreCalculatedPrimeTable", 84, 84),
        ("method", "PreCalculatedPrimeTable::IsPrime", 86, 88),
        ("method", "PreCalculatedPrimeTable::GetNextPrime", 90, 96),
        ("method", "PreCalculatedPrimeTable::CalculatePrimesUpTo", 99, 115),
        ("method", "PreCalculatedPrimeTable::operator=", 121, 121),
    }
    assert edges(pf, "inherits") == {("OnTheFlyPrimeTable", "PrimeTable", "PrimeTable"),
                                     ("PreCalculatedPrimeTable", "PrimeTable", "PrimeTable")}
    assert ("PreCalculatedPrimeTable::PreCalculatedPrimeTable", "CalculatePrimesUpTo",
            "CalculatePrimesUpTo") in edges(pf, "calls")
    assert unit(pf, "PrimeTable::IsPrime").docstring == "Returns true if and only if n is a prime number."
    assert ("PrimeTable", "contains", "PrimeTable::IsPrime") in {(e.source, e.kind, e.target) for e in pf.edges}


# --------------------------------------------------------------------------- C#


def test_csharp_block_namespace_interfaces_and_inheritance() -> None:
    pf = parsed("csharp", "Interfaces.cs")
    assert units_of(pf) == {
        ("interface", "Python.Runtime.IReflectedType", 8, 12),
        ("method", "Python.Runtime.IReflectedType.PythonTypeName", 10, 10),
        ("method", "Python.Runtime.IReflectedType.GetReflectedType", 11, 11),
        ("interface", "Python.Runtime.IReflectedClass", 14, 17),
        ("method", "Python.Runtime.IReflectedClass.IsException", 16, 16),
        ("interface", "Python.Runtime.IReflectedInterface", 19, 21),
        ("interface", "Python.Runtime.IReflectedArray", 23, 25),
        ("interface", "Python.Runtime.IReflectedGenericClass", 27, 29),
    }
    assert ("Python.Runtime.IReflectedGenericClass", "IReflectedClass", "IReflectedClass") in edges(pf, "inherits")
    assert len(edges(pf, "inherits")) == 4
    assert {t for _s, t, _f in edges(pf, "imports")} == {"System"}


def test_csharp_file_scoped_namespace_xml_docs_and_calls() -> None:
    decoder = parsed("csharp", "Codecs/IPyObjectDecoder.cs")
    iface = unit(decoder, "Python.Runtime.IPyObjectDecoder")  # `namespace Python.Runtime;` covers the file
    assert (iface.kind, iface.start_line, iface.end_line) == ("interface", 8, 22)
    assert iface.docstring == "Defines PyObject conversion to CLR types (unmarshalling)"  # XML tags stripped
    can = unit(decoder, "Python.Runtime.IPyObjectDecoder.CanDecode")
    assert can.docstring == "Checks if this decoder can decode from objectType to targetType"
    assert can.signature == "bool CanDecode(PyType objectType, Type targetType)"

    pf = parsed("csharp", "Util/ParameterHelper.cs")
    assert units_of(pf) == {
        ("class", "Python.Runtime.Reflection.ParameterHelper", 9, 83),
        ("method", "Python.Runtime.Reflection.ParameterHelper.ParameterHelper", 16, 32),  # constructors
        ("method", "Python.Runtime.Reflection.ParameterHelper.ParameterHelper", 34, 51),
        ("method", "Python.Runtime.Reflection.ParameterHelper.IsSpecialType", 53, 53),  # a property with code
        ("method", "Python.Runtime.Reflection.ParameterHelper.Equals", 55, 58),
        ("method", "Python.Runtime.Reflection.ParameterHelper.Matches", 60, 60),
        ("method", "Python.Runtime.Reflection.ParameterHelper.Equals", 62, 82),
        ("enum", "Python.Runtime.Reflection.ParameterModifier", 85, 91),
    }
    cls = unit(pf, "Python.Runtime.Reflection.ParameterHelper")
    assert cls.signature == "class ParameterHelper : IEquatable<ParameterInfo>"
    assert edges(pf, "inherits") == {("Python.Runtime.Reflection.ParameterHelper", "IEquatable",
                                      "IEquatable")}
    ctor = "Python.Runtime.Reflection.ParameterHelper.ParameterHelper"
    assert {(ctor, "Assert", "Debug.Assert"), (ctor, "ParameterHelper", "new ParameterHelper"),
            (ctor, "GetElementType", "type.GetElementType")} <= edges(pf, "calls")
    assert {t for _s, t, _f in edges(pf, "imports")} == {
        "System", "System.Collections.Generic", "System.Diagnostics", "System.Linq", "System.Reflection"}


# --------------------------------------------------------------------------- Objective-C


def test_objc_header_decided_by_content() -> None:
    pf = parsed("objc", "CDVDevice.h")
    assert pf.language == "objc"
    assert units_of(pf) == {
        ("class", "CDVDevice", 23, 30),
        ("method", "CDVDevice.cordovaVersion", 26, 26),
        ("method", "CDVDevice.getDeviceInfo", 28, 28),
    }
    assert unit(pf, "CDVDevice.getDeviceInfo").signature == "- (void)getDeviceInfo:(CDVInvokedUrlCommand*)command"
    assert unit(pf, "CDVDevice").signature == "@interface CDVDevice : CDVPlugin {}"
    assert edges(pf, "inherits") == {("CDVDevice", "CDVPlugin", "CDVPlugin")}
    assert {t for _s, t, _f in edges(pf, "imports")} == {"UIKit/UIKit.h", "Cordova/CDVPlugin.h"}


def test_objc_implementation_categories_messages_and_c_calls() -> None:
    pf = parsed("objc", "CDVDevice.m")
    assert units_of(pf) == {
        ("class", "UIDevice", 29, 47),  # @implementation UIDevice (ModelVersion): a category
        ("method", "UIDevice.modelVersion", 31, 45),
        ("class", "CDVDevice", 49, 50),  # the class extension @interface CDVDevice ()
        ("class", "CDVDevice", 52, 130),
        ("method", "CDVDevice.uniqueAppInstanceIdentifier", 54, 76),
        ("method", "CDVDevice.getDeviceInfo", 78, 84),
        ("method", "CDVDevice.deviceProperties", 86, 100),
        ("method", "CDVDevice.cordovaVersion", 102, 105),
        ("method", "CDVDevice.isVirtual", 107, 116),
        ("method", "CDVDevice.isiOSAppOnMac", 119, 128),
    }
    calls = edges(pf, "calls")
    # [userDefaults stringForKey:UUID_KEY] is a call of its first selector keyword; C calls too
    assert ("CDVDevice.uniqueAppInstanceIdentifier", "stringForKey", "stringForKey") in calls
    assert ("CDVDevice.uniqueAppInstanceIdentifier", "setObject", "setObject") in calls
    assert ("UIDevice.modelVersion", "sysctlbyname", "sysctlbyname") in calls
    assert ("CDVDevice.getDeviceInfo", "deviceProperties", "deviceProperties") in calls
    imports = {t for _s, t, _f in edges(pf, "imports")}
    assert imports == {"sys/types.h", "sys/sysctl.h", "TargetConditionals.h", "Availability.h", "Cordova/CDV.h",
                       "CDVDevice.h"}  # #include and #import
    assert unit(pf, "CDVDevice", 52).signature == "@implementation CDVDevice"


def test_objc_protocols_and_adopted_protocols() -> None:
    src = b"""#import "Foo.h"
@import Foundation;
@protocol Greeter <NSObject>
- (NSString *)greet:(NSString *)name;
@end

@interface Foo : NSObject <Greeter, NSCopying>
// Stores one object under its key.
- (void)setObject:(id)obj forKey:(id)key;
@end
"""
    pf = parse_file("Foo.h", src)
    assert pf is not None and pf.language == "objc"
    assert units_of(pf) == {("interface", "Greeter", 3, 5), ("method", "Greeter.greet", 4, 4),
                            ("class", "Foo", 7, 10), ("method", "Foo.setObject", 9, 9)}
    assert unit(pf, "Foo.setObject").docstring == "Stores one object under its key."
    assert edges(pf, "inherits") == {("Greeter", "NSObject", "NSObject"), ("Foo", "NSObject", "NSObject"),
                                     ("Foo", "Greeter", "Greeter"), ("Foo", "NSCopying", "NSCopying")}
    assert {t for _s, t, _f in edges(pf, "imports")} == {"Foo.h", "Foundation"}


def test_objcpp_file_keeps_the_dialect_parse_that_finds_more_definitions() -> None:
    """An Objective-C++ ``.mm`` file that is mostly C++ is read as C++ (``reparse_with``), one that
    is mostly ``@implementation`` stays Objective-C: as Objective-C, React Native's message thread
    loses its constructor and destructor and every method loses its class."""
    thread = parsed("objc", "react-native/RCTMessageThread.mm")
    assert thread.language == "cpp"
    qualified = "facebook::react::RCTMessageThread::"
    assert units_of(thread) == {("method", qualified + name, first, last) for name, first, last in [
        ("RCTMessageThread", 25, 29), ("~RCTMessageThread", 31, 35), ("runAsync", 38, 48), ("runSync", 51, 64),
        ("tryFunc", 66, 72), ("runOnQueue", 74, 84), ("runOnQueueSync", 86, 96), ("quitSynchronous", 98, 103),
        ("setRunLoop", 105, 110)]}
    assert ("facebook::react::RCTMessageThread::runSync", "runAsync") in {
        (s, t) for s, t, _f in edges(thread, "calls")}
    as_objc = parse_file("RCTMessageThread.m", (FIXTURES / "objc/react-native/RCTMessageThread.mm").read_bytes())
    assert as_objc is not None and as_objc.language == "objc"  # a .m file is never reparsed
    assert len(units_of(as_objc)) < len(units_of(thread))

    pointer = parsed("objc", "react-native/RCTManagedPointer.mm")
    assert pointer.language == "objc" and pointer.had_errors  # C++ finds nothing in it
    assert units_of(pointer) == {("class", "RCTManagedPointer", 10, 27),
                                 ("method", "RCTManagedPointer.initWithPointer", 14, 20),
                                 ("method", "RCTManagedPointer.voidPointer", 22, 25)}


# Shapes from lz4 4.4.5's bundled xxhash and python-lz4's _frame.c, where the grammar's error
# recovery used to name units after a type or a keyword.
EXPORT_MACRO_SOURCE = b"""/* Hash a buffer in one call. */
MYLIB_API my_hash_t my_hash (const void* input, size_t length, unsigned int seed);

MYLIB_API my_errorcode my_update (my_state_t* state, const void* input, size_t len)
{
    if (len == 0)
        return MY_OK;
    return my_update_endian(state, input, len);
}
"""

MACRO_STATEMENT_SOURCE = b"""static PyObject *
compress_chunk (PyObject * self, PyObject * args)
{
  context = get_context (args);
  Py_BEGIN_ALLOW_THREADS
  if (context->auto_flush == 1)
    {
      bound = frame_bound (size);
    }
  else
    {
      bound = plain_bound (size);
    }
  Py_END_ALLOW_THREADS

  if (bound > SIZE_LIMIT)
    {
      release (&source);
      return NULL;
    }
  return args;
}
"""


@pytest.mark.parametrize("path", ["hash.c", "hash.cpp"])
def test_an_export_macro_before_the_return_type_does_not_rename_the_function(path: str) -> None:
    # `API RetType name(args)` parses as a declarator named RetType with the name in an ERROR node
    names = {(u.name, u.start_line) for u in parse_file(path, EXPORT_MACRO_SOURCE).units if u.kind == "function"}
    assert names == {("my_hash", 2), ("my_update", 4)}


@pytest.mark.parametrize("path", ["frame.c", "frame.cpp"])
def test_a_statement_after_a_bare_macro_is_no_function_named_if(path: str) -> None:
    functions = [u.name for u in parse_file(path, MACRO_STATEMENT_SOURCE).units if u.kind == "function"]
    assert functions == ["compress_chunk"]



def test_documented_prototypes_inside_an_error_region_are_units() -> None:
    """Brotli's decode.h: its error-code X-macro list leaves every later declaration inside one ERROR
    node, where the `(comment) . (declaration)` anchor never matches; all 14 API prototypes were missing."""
    pf = parsed("c", "brotli/decode.h")
    functions = {u.name: u for u in pf.units if u.kind == "function"}
    assert {"BrotliDecoderSetParameter", "BrotliDecoderCreateInstance", "BrotliDecoderDecompress",
            "BrotliDecoderDecompressStream", "BrotliDecoderErrorString", "BrotliDecoderVersion"} <= set(functions)
    assert len([n for n in functions if n.startswith("BrotliDecoder")]) == 14
    assert functions["BrotliDecoderDecompress"].docstring.startswith("Performs one-shot memory-to-memory decompression.")
    assert (functions["BrotliDecoderDecompress"].start_line, functions["BrotliDecoderDecompress"].end_line) == (226, 230)


def test_cpp_a_macro_between_class_and_its_name_and_after_a_signature_is_no_name() -> None:
    """LevelDB's ``class SCOPED_LOCKABLE MutexLock`` and ``MutexLock(...) EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {``:
    the class and its constructor and destructor, not functions named after the annotations."""
    pf = parsed("cpp", "leveldb/mutexlock.h")
    assert {("class", "leveldb::MutexLock", 23, 36), ("method", "leveldb::MutexLock::MutexLock", 25, 28),
            ("method", "leveldb::MutexLock::~MutexLock", 29, 29)} <= units_of(pf)
    assert not [u for u in pf.units if "LOCK" in u.name]


def test_cpp_a_nested_type_defined_out_of_line_holds_its_members() -> None:
    """``template <...> struct SkipList<Key, Comparator>::Node { ... }``: a struct of SkipList, and its inline
    methods are its methods (they were namespace functions named ``leveldb::Next``)."""
    pf = parsed("cpp", "leveldb/skiplist.h")
    assert {("struct", "leveldb::SkipList::Node", 146, 180), ("method", "leveldb::SkipList::Node::Next", 154, 159),
            ("method", "leveldb::SkipList::Node::NoBarrier_SetNext", 172, 175)} <= units_of(pf)
    assert not [u for u in pf.units if u.qualname.startswith("leveldb::") and "::" not in u.qualname[9:]
                and u.kind != "class"]


def test_cpp_a_function_written_by_a_macro_is_named_by_its_last_argument() -> None:
    """``TEST(Coding, Fixed32) { ... }`` (also ``NAPI_METHOD(db_open) { ... }``) defines ``Fixed32``, not ``TEST``."""
    pf = parsed("cpp", "leveldb/coding_test.cc")
    assert {("function", "leveldb::Fixed32", 13, 25), ("function", "leveldb::Varint64Truncation", 160, 170)} \
        <= units_of(pf)
    assert not [u for u in pf.units if u.name == "TEST"]
