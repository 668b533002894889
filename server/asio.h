// server/asio.h
//
// The one place that includes Boost.Asio, kept out of widely included
// headers (it is heavy on two cores). <utility> first: Boost 1.74's
// awaitable.hpp uses std::exchange without including it.
#pragma once

#include <utility>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>

namespace sluice::server {
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;
}  // namespace sluice::server
