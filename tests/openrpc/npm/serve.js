// Serves an OpenRPC document with @open-rpc/mock-server on 127.0.0.1 only.
//
//   node serve.js <document.json> <port>
//
// The mock server's CLI listens on every interface; binding its HTTP server
// to loopback keeps the test's servers off the network. It prints
// "Server Started" once listening, which the test waits for.
"use strict";

const http = require("http");

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (port, callback) {
  return listen.call(this, port, "127.0.0.1", callback);
};

const [document, port] = process.argv.slice(2);
process.argv = [process.argv[0], "open-rpc-mock-server", "-d", document, "-p", port];
require("@open-rpc/mock-server/build/cli.js");
