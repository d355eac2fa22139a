// The db-postgres module's entry: libpq's functions, linked here and nowhere
// else in tracehound.
#include "core/scan/postgres_module.h"

extern "C" __attribute__((visibility("default"))) const th::scan::PostgresApi*
th_postgres_module() {
  static const th::scan::PostgresApi api{&PQconnectdb,
                                         &PQstatus,
                                         &PQerrorMessage,
                                         &PQfinish,
                                         &PQsetNoticeProcessor,
                                         &PQexec,
                                         &PQexecParams,
                                         &PQresultStatus,
                                         &PQresultErrorMessage,
                                         &PQclear,
                                         &PQnfields,
                                         &PQntuples,
                                         &PQfname,
                                         &PQgetisnull,
                                         &PQgetvalue,
                                         &PQgetlength,
                                         &PQftype};
  return &api;
}
