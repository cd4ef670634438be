/*
 * config-table.c: every setting steedmail knows, with its type and help.
 * Adding a setting means adding a line here and a field in config.h; the
 * parser, --help-config and the man-page check all read this table.
 */
#include <stddef.h>

#include "config.h"

#define G(f)	offsetof(struct config, f)
#define A(f)	offsetof(struct account, f)

const struct config_setting config_settings[] = {
	{ "default-account", CONFIG_GLOBAL, CONFIG_ACCOUNT_ID,
	  G(default_account), 0, "NAME",
	  "account used when -A is not given (default: the first one)" },
	{ "ca-file", CONFIG_GLOBAL, CONFIG_PATH, G(ca_file), 0, "FILE",
	  "PEM file of CA certificates trusted for every account, "
	  "instead of the system store" },
	{ "gnupg-home", CONFIG_GLOBAL, CONFIG_PATH, G(gnupg_home), 0, "DIR",
	  "use this GnuPG home (e.g. ~/.gnupg) instead of steedmail's own "
	  "in the data directory" },
	{ "dns-config", CONFIG_GLOBAL, CONFIG_PATH, G(dns_config), 0, "FILE",
	  "unbound.conf(5) file for the DNS key lookups (stub zones, "
	  "anchors, forwarders)" },
	{ "dns-forwarder", CONFIG_GLOBAL, CONFIG_STRING, G(dns_forwarder), 0,
	  "ADDR", "DNS resolver to ask (IP[@PORT]) instead of those in "
	  "/etc/resolv.conf" },
	{ "dns-recursion", CONFIG_GLOBAL, CONFIG_BOOL, G(dns_recursion), 0,
	  "yes|no", "resolve from the root servers instead of asking a "
	  "resolver (default: no)" },
	{ "dns-trust-anchor", CONFIG_GLOBAL, CONFIG_PATH, G(dns_trust_anchor),
	  0, "FILE", "extra DNSSEC trust anchors (DS or DNSKEY records)" },
	{ "dns-timeout", CONFIG_GLOBAL, CONFIG_SECONDS, G(dns_timeout), 0,
	  "SECONDS", "how long key lookups in DNS may take (default: 5)" },
	{ "encrypt", CONFIG_GLOBAL, CONFIG_CHOICE, G(encrypt), 0,
	  "opportunistic|always|never",
	  "when -s encrypts: whenever every recipient has a key "
	  "(default), always (else refuse), or only when asked" },
	{ "fallback", CONFIG_GLOBAL, CONFIG_CHOICE, G(fallback), 0,
	  "plaintext|ask|refuse",
	  "a recipient without a key: send in clear with a note (default), "
	  "ask (batch: refuse), or refuse" },
	{ "dns-wait", CONFIG_GLOBAL, CONFIG_STRING, G(dns_wait), 0,
	  "DURATION",
	  "how long a message waits in the outbox when a recipient's key "
	  "lookup fails, before it is given up (default: 2d)" },
	{ "alias-file", CONFIG_GLOBAL, CONFIG_PATH, G(alias_file), 0, "FILE",
	  "aliases for address completion, in mutt's form (default: "
	  "$XDG_CONFIG_HOME/steedmail/aliases)" },
	{ "new-mail-command", CONFIG_GLOBAL, CONFIG_COMMAND,
	  G(new_mail_command), 0, "COMMAND",
	  "in the interface, a shell command run when IDLE brings new "
	  "mail (%f the folder, %n how many, %a the account)" },
	{ "query-command", CONFIG_GLOBAL, CONFIG_COMMAND,
	  G(query_command), 0, "COMMAND",
	  "an address book to ask, as mutt's query_command: %s is what was "
	  "typed; its output a line of text, then ADDRESS<TAB>NAME<TAB>"
	  "OTHER lines (khard email --parsable %s, abook --mutt-query %s)" },
	{ "provider-dir", CONFIG_GLOBAL, CONFIG_PATH, G(provider_dir), 0,
	  "DIR", "the provider files the setup wizard looks domains up in "
	  "(default: those make install put in its data directory)" },
	{ "sync-trust-limit", CONFIG_GLOBAL, CONFIG_STRING,
	  G(sync_trust_limit), 0, "NUMBER",
	  "newest new messages of a sync whose signatures and keys go into "
	  "the trust store before it returns; the older ones follow, newest "
	  "first (default: 300; 0: none at all)" },
	{ "cache-protected-headers", CONFIG_GLOBAL, CONFIG_CHOICE,
	  G(cache_protected), 0, "yes|no",
	  "keep the Subject, From, To and other header fields an encrypted "
	  "message holds inside in the header cache, decrypted, for the "
	  "index and --list (default: yes)" },
	{ "autoedit", CONFIG_GLOBAL, CONFIG_BOOL, G(autoedit), 0, "yes|no",
	  "m opens the editor at once, as mutt's autoedit (default: no: "
	  "To and Subject are asked first, so the security line says "
	  "whether the message will be encrypted before it is written)" },
	{ "body-cache-size", CONFIG_GLOBAL, CONFIG_STRING,
	  G(body_cache_size), 0, "SIZE",
	  "how much of the mail read is kept, as fetched, to read again "
	  "without the server and to search (default: 512M; 0: none)" },
	{ "body-prefetch-days", CONFIG_GLOBAL, CONFIG_STRING,
	  G(body_prefetch_days), 0, "DAYS",
	  "after a sync, fetch into the body cache the messages that arrived "
	  "in the last DAYS days (default: 0, none: for a metered link)" },
	{ "index-decrypted", CONFIG_GLOBAL, CONFIG_CHOICE,
	  G(index_decrypted), 0, "yes|no",
	  "put the decrypted text of encrypted mail into the full-text "
	  "index, so that searches find it (default: no)" },
	{ "bind", CONFIG_GLOBAL, CONFIG_LIST, G(binds), 0, "MAP KEY ACTION",
	  "in the interface, KEY on screen MAP runs ACTION (repeatable; "
	  "see steedmail(1), SCREENS)" },
	{ "color", CONFIG_GLOBAL, CONFIG_LIST, G(colors), 0,
	  "OBJECT FG BG [ATTRS]",
	  "in the interface, draw OBJECT in these colours (repeatable; "
	  "mutt's form, also without the =)" },

	{ "name", CONFIG_ACCOUNT, CONFIG_STRING, A(name), 0, "TEXT",
	  "your name, as shown in From" },
	{ "address", CONFIG_ACCOUNT, CONFIG_ADDRESS, A(address), 1, "ADDR",
	  "your mail address" },
	{ "imap", CONFIG_ACCOUNT, CONFIG_IMAP_URL, A(imap), 1, "URL",
	  "IMAP server: imaps://HOST[:PORT] (TLS, port 993) or "
	  "imap://HOST[:PORT] (STARTTLS required, port 143)" },
	{ "smtp", CONFIG_ACCOUNT, CONFIG_SMTP_URL, A(smtp), 1, "URL",
	  "submission server: smtps://HOST[:PORT] (TLS, port 465) or "
	  "smtp://HOST[:PORT] (STARTTLS required, port 587)" },
	{ "user", CONFIG_ACCOUNT, CONFIG_STRING, A(user), 0, "LOGIN",
	  "login name for both servers (default: the address)" },
	{ "password-command", CONFIG_ACCOUNT, CONFIG_COMMAND,
	  A(password_command), 0, "COMMAND",
	  "shell command whose first output line is the password" },
	{ "password-file", CONFIG_ACCOUNT, CONFIG_PATH, A(password_file), 0,
	  "FILE", "a file holding the password encrypted to your OpenPGP "
	  "key, as steedmail --setup keeps it; decrypted through gpg when "
	  "needed" },
	{ "password", CONFIG_ACCOUNT, CONFIG_SECRET, A(password), 0, "TEXT",
	  "the password itself, in clear (the file must then be mode 0600; "
	  "--check-config warns)" },
	{ "auth", CONFIG_ACCOUNT, CONFIG_CHOICE, A(auth), 0,
	  "password|oauth2", "how to log in to both servers: with the "
	  "password (default), or with OAuth2 (SASL OAUTHBEARER or XOAUTH2; "
	  "steedmail --oauth-login signs in once)" },
	{ "oauth2-token-file", CONFIG_ACCOUNT, CONFIG_PATH,
	  A(oauth2_token_file), 0, "FILE",
	  "where the OAuth2 refresh token is kept, encrypted to your "
	  "OpenPGP key (default: oauth2-NAME.asc in the data directory)" },
	{ "oauth2-token-url", CONFIG_ACCOUNT, CONFIG_STRING,
	  A(oauth2_token_url), 0, "URL",
	  "the OAuth2 token endpoint, https:// (default: the provider "
	  "file's)" },
	{ "oauth2-device-url", CONFIG_ACCOUNT, CONFIG_STRING,
	  A(oauth2_device_url), 0, "URL",
	  "the device authorization endpoint of RFC 8628, https:// "
	  "(default: the provider file's)" },
	{ "oauth2-auth-url", CONFIG_ACCOUNT, CONFIG_STRING,
	  A(oauth2_auth_url), 0, "URL",
	  "the authorization endpoint, https://, for signing in with a "
	  "browser on this machine (default: the provider file's)" },
	{ "oauth2-scope", CONFIG_ACCOUNT, CONFIG_STRING, A(oauth2_scope), 0,
	  "SCOPES", "the scopes asked for, separated by spaces (default: the "
	  "provider file's)" },
	{ "oauth2-client-id", CONFIG_ACCOUNT, CONFIG_STRING,
	  A(oauth2_client_id), 0, "ID",
	  "the client ID registered with the provider (default: the "
	  "provider file's)" },
	{ "oauth2-client-secret", CONFIG_ACCOUNT, CONFIG_SECRET,
	  A(oauth2_client_secret), 0, "TEXT",
	  "the client secret that goes with the client ID, when the provider "
	  "gave one (default: the provider file's)" },
	{ "oauth2-mechanism", CONFIG_ACCOUNT, CONFIG_CHOICE,
	  A(oauth2_mechanism), 0, "oauthbearer|xoauth2",
	  "the SASL mechanism for the token (default: OAUTHBEARER where the "
	  "server offers it, else XOAUTH2)" },
	{ "sent-copy", CONFIG_ACCOUNT, CONFIG_CHOICE, A(sent_copy), 0,
	  "auto|yes|no", "keep a copy of what is sent in the Sent folder: "
	  "auto (default) does, unless the server is Gmail's, which keeps "
	  "its own" },
	{ "sent-folder", CONFIG_ACCOUNT, CONFIG_STRING, A(sent_folder), 0,
	  "FOLDER", "the folder the copy of what is sent goes to (default: "
	  "the one the server marks \\Sent, else one named Sent, Sent "
	  "Items, Sent Messages or Sent Mail)" },
	{ "trash-folder", CONFIG_ACCOUNT, CONFIG_STRING, A(trash_folder), 0,
	  "FOLDER", "the folder deleted messages go to (default: the one "
	  "marked \\Trash, else Trash, Deleted Items or Deleted Messages)" },
	{ "drafts-folder", CONFIG_ACCOUNT, CONFIG_STRING, A(drafts_folder), 0,
	  "FOLDER", "the folder postponed drafts are kept in on the server "
	  "(default: the one marked \\Drafts, else Drafts, made if "
	  "missing)" },
	{ "archive-folder", CONFIG_ACCOUNT, CONFIG_STRING, A(archive_folder),
	  0, "FOLDER", "the account's archive folder (default: the one "
	  "marked \\Archive, else Archive or Archives)" },
	{ "ca-file", CONFIG_ACCOUNT, CONFIG_PATH, A(ca_file), 0, "FILE",
	  "PEM file of CA certificates trusted for this account" },
	{ "cert-fingerprint", CONFIG_ACCOUNT, CONFIG_FINGERPRINT,
	  A(cert_fingerprint), 0, "SHA256",
	  "accept exactly the server certificate with this SHA-256 "
	  "fingerprint (for self-signed servers)" },
	{ "key", CONFIG_ACCOUNT, CONFIG_KEY_ID, A(key), 0, "FPR",
	  "use this existing OpenPGP key (or smartcard key) instead of "
	  "creating one" },
	{ "smime", CONFIG_ACCOUNT, CONFIG_BOOL, A(smime), 0, "yes|no",
	  "also create and use a self-signed S/MIME certificate "
	  "(default: no)" },
	{ "smime-key", CONFIG_ACCOUNT, CONFIG_KEY_ID, A(smime_key), 0, "FPR",
	  "use this existing S/MIME certificate instead of creating one" },
	{ "dns-update-server", CONFIG_ACCOUNT, CONFIG_STRING,
	  A(dns_update_server), 0, "HOST[:PORT]",
	  "DNS server that takes dynamic updates (RFC 2136) for the "
	  "address's zone: steedmail --publish sends the key records there "
	  "(port 53 unless given)" },
	{ "dns-update-key", CONFIG_ACCOUNT, CONFIG_SECRET,
	  A(dns_update_key), 0, "ALGORITHM:NAME:SECRET",
	  "the TSIG key that signs the updates, as nsupdate -y takes it: "
	  "hmac-sha256 (or hmac-sha512, hmac-sha1), the key's "
	  "name and its base64 secret" },
	{ "dns-update-zone", CONFIG_ACCOUNT, CONFIG_STRING,
	  A(dns_update_zone), 0, "ZONE",
	  "the zone to update (default: the address's domain)" },
};

/* config.c stores a CONFIG_LIST's count right after its array. */
_Static_assert(offsetof(struct config, nbinds) ==
    offsetof(struct config, binds) + sizeof(char **),
    "nbinds must follow binds");

_Static_assert(offsetof(struct config, ncolors) ==
    offsetof(struct config, colors) + sizeof(char **),
    "ncolors must follow colors");

const size_t config_nsettings =
    sizeof config_settings / sizeof config_settings[0];
