# Sourced by .ci/run (and usable by hand: `source .ci/use-node.sh`): puts Node NODE_VERSION first on
# PATH, from the npm registry's platform package (the real binary with its headers) when the
# machine's Node is another major, and points node-gyp at those headers for native addons.
NODE_VERSION=24.21.0
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "${NODE_VERSION%%.*}" ]; then
  case "$(uname -m)" in x86_64) node_arch=x64 ;; aarch64|arm64) node_arch=arm64 ;; *) node_arch=$(uname -m) ;; esac
  node_pkg="node-$(uname -s | tr '[:upper:]' '[:lower:]')-$node_arch"
  node_prefix="${XDG_CACHE_HOME:-$HOME/.cache}/quire/node-$NODE_VERSION"
  if [ ! -x "$node_prefix/node_modules/$node_pkg/bin/node" ]; then
    npm install --prefix "$node_prefix" --no-save --no-audit --no-fund --loglevel=error "$node_pkg@$NODE_VERSION"
  fi
  export PATH="$node_prefix/node_modules/$node_pkg/bin:$PATH"
  export npm_config_nodedir="$node_prefix/node_modules/$node_pkg"
fi
