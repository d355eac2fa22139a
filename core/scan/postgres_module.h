// The db-postgres module: the libpq functions PostgresDatabase calls, handed
// over as one table so that only a process that opens a postgresql:// database
// maps libpq (and its Kerberos, LDAP and TLS libraries).
#pragma once

#include <libpq-fe.h>

#include <string>

namespace th::scan {

struct PostgresApi {
  decltype(&PQconnectdb) connectdb;
  decltype(&PQstatus) status;
  decltype(&PQerrorMessage) error_message;
  decltype(&PQfinish) finish;
  decltype(&PQsetNoticeProcessor) set_notice_processor;
  decltype(&PQexec) exec;
  decltype(&PQexecParams) exec_params;
  decltype(&PQresultStatus) result_status;
  decltype(&PQresultErrorMessage) result_error_message;
  decltype(&PQclear) clear;
  decltype(&PQnfields) nfields;
  decltype(&PQntuples) ntuples;
  decltype(&PQfname) fname;
  decltype(&PQgetisnull) getisnull;
  decltype(&PQgetvalue) getvalue;
  decltype(&PQgetlength) getlength;
  decltype(&PQftype) ftype;
};

// Loads the module on first use; nullptr with *error naming the module and
// the library that could not be loaded.
const PostgresApi* LoadPostgresApi(std::string* error);

}  // namespace th::scan

#define TH_POSTGRES_MODULE_ENTRY "th_postgres_module"
