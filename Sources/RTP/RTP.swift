/// Module RTP.
