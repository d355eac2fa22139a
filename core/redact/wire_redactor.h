// Redaction of protobuf captures in their wire format, without libprotobuf:
// XSpace (`.xplane.pb`) and xla.HloProto (`*.hlo_proto.pb`, and the "Hlo
// Proto" stats embedded in an XSpace's metadata plane).
//
// Every field is copied byte for byte except the string fields listed below,
// which get the rules; the length prefixes of the messages around a changed
// string are recomputed. Strings rewritten (field numbers of
// core/import/xspace/xplane.proto and core/import/hlo/hlo.proto):
//   XSpace        errors 2, warnings 3, hostnames 4
//   XPlane        name 2            XLine      name 2, display_name 11
//   XEventMetadata name 2, display_name 4     XStatMetadata name 2, description 3
//   XStat         str_value 5 (the stat's name is the key for field rules; a
//                 ref_value's target stat metadata gets the same field rule);
//                 bytes_value 6 of an "Hlo Proto" stat is an HloProto
//   HloModuleProto name 1, entry_computation_name 2   HloComputationProto name 1
//   HloInstructionProto name 1, backend_config 43 (when it is UTF-8 text)
//   OpMetadata    op_type 1, op_name 2, source_file 3, deduplicated_name 12
//   StackFrameIndexProto file_names 1, function_names 2
// Names of HLO instructions are rewritten in the same way wherever they
// occur, so the links between an XSpace and its HLO survive any rule.
//
// Two passes per XSpace plane (or HloProto): the first measures the new size
// of every message that changes (held by address, only those), the second
// writes. Memory: the input (mapped or read whole) and one entry per changed
// message of the plane being written. Bad input fails like the importer's
// strict reader: what is wrong and the byte offset.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/graph/status.h"
#include "core/redact/output_sink.h"
#include "core/redact/string_redactor.h"

namespace th::redact {

// mapped: `in` is a private file mapping whose pages may be given back
// (MADV_DONTNEED) once a plane is written, so resident memory stays about one
// plane, not the file.
Status RedactXSpace(std::string_view in, const std::string& name, StringRedactor& redactor,
                    ByteSink& out, bool mapped = false);
Status RedactHloProto(std::string_view in, const std::string& name, StringRedactor& redactor,
                      ByteSink& out);

// The pre-pass: XSpace.hostnames, appended to *hosts.
Status CollectXSpaceHosts(std::string_view in, const std::string& name,
                          std::vector<std::string>* hosts);

}  // namespace th::redact
