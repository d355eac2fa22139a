// Where a store's endpoint and credentials come from, by the conventions of
// each cloud's own tools:
//   S3   AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, else the
//        profile AWS_PROFILE (default "default") of AWS_SHARED_CREDENTIALS_FILE
//        (default ~/.aws/credentials); region AWS_REGION, AWS_DEFAULT_REGION,
//        the profile's region in AWS_CONFIG_FILE (~/.aws/config), else
//        us-east-1; endpoint AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL
//        (S3-compatible stores, path-style), else AWS's virtual-hosted one.
//        No credentials anywhere: unsigned requests (public buckets).
//   GCS  the XML API: HMAC keys GOOGLE_HMAC_ACCESS_ID / GOOGLE_HMAC_SECRET
//        (SigV4, region "auto"), else a bearer token GOOGLE_OAUTH_ACCESS_TOKEN;
//        endpoint STORAGE_EMULATOR_HOST, else https://storage.googleapis.com.
//   Azure AZURE_STORAGE_SAS_TOKEN, else AZURE_STORAGE_KEY (Shared Key);
//        endpoint AZURE_STORAGE_ENDPOINT, else https://ACCOUNT.blob.core.windows.net.
// `source` says where credentials came from, for errors; no secret is ever
// part of a message.
#pragma once

#include <functional>
#include <string>

#include "core/graph/status.h"

namespace th::remote {

using Getenv = std::function<std::string(const char*)>;
// The process environment ("" for unset).
std::string ProcessEnv(const char* name);

struct StoreConfig {
  std::string endpoint;  // "https://storage.googleapis.com"; "" = the cloud's default
  std::string region;    // SigV4 region
  std::string access_key, secret_key, session_token;  // SigV4 (S3, GCS HMAC)
  std::string bearer_token;                           // GCS OAuth
  std::string sas_token, shared_key;                  // Azure
  std::string source;  // "environment (AWS_ACCESS_KEY_ID)", "profile p of FILE", "none"
};

StatusOr<StoreConfig> S3Config(const Getenv& env);
StoreConfig GcsConfig(const Getenv& env);
StoreConfig AzureConfig(const Getenv& env);

}  // namespace th::remote
